import type { Schemas } from '@/lib/api-client';
import { formatCount } from '@/lib/format';
import { runWrittenUrlsUrl } from '../../api/get-run-written-urls';

interface Props {
  runId: string;
  result: Schemas['RunResult'];
}

/**
 * WrittenUrls offers the URLs a run's successful writes went to as a text
 * file, one per line (a URL list for a run that reads them back), with the
 * writes left out when there are any. It renders nothing for a run that did
 * not record them.
 */
export function WrittenUrls({ runId, result }: Props) {
  const counts = result.written_urls;
  if (!counts) return null;
  return (
    <section className="card" aria-label="Written URLs">
      <div className="run-chart-head">
        <h2>Written URLs</h2>
        {counts.stored > 0 ? (
          <a href={runWrittenUrlsUrl(runId)} download={`barrage-${runId}-written-urls.txt`}>
            Written URLs ({formatCount(counts.stored)})
          </a>
        ) : (
          <span className="run-chart-note">No successful write was recorded.</span>
        )}
      </div>
      <p className="run-chart-note" data-testid="written-urls-note">
        {counts.dropped > 0 && (
          <>
            {formatCount(counts.dropped)} successful {counts.dropped === 1 ? 'write was' : 'writes were'} not recorded (over
            the limit of 1,000,000, too long, or lost with a snapshot).{' '}
          </>
        )}
        Read them back with a run whose spec has <code>urls_from_run</code> set to this run.
      </p>
    </section>
  );
}

import { Link } from 'react-router';
import { Stat } from '@/components/ui/stat';
import type { Schemas } from '@/lib/api-client';
import { formatBytes, formatCount, formatDuration, formatPercent, formatRate, formatSeconds } from '@/lib/format';
import { headlineLatency } from '../../utils/imported';
import { thinPercentile } from '../../utils/measurement';
import { ThinMark } from './thin-mark';

/**
 * ResultSummary is the headline figures of a finished run, latencies of its
 * primary kind; for an imported run, the figures its document recorded.
 */
export function ResultSummary({ result }: { result: Schemas['RunResult'] }) {
  const lat = headlineLatency(result);
  const imported = result.imported;
  const errShare = result.count > 0 ? result.errors / result.count : 0;
  return (
    <section className="stack" style={{ gap: 10 }} aria-label="Result summary">
      {result.degraded && (
        <div className="run-notice warn" role="alert">
          <strong>Degraded result.</strong>
          <div className="detail" data-testid="degraded-detail">
            {result.lost_shards} of {result.shards + result.lost_shards} shards were lost: their agent stopped answering mid-run. These figures hold
            what a lost shard sent up to its last snapshot, and nothing after it, so the count falls short of what was asked. The Shards table
            names each shard&apos;s agent: check it on the <Link to="/agents">Agents</Link> page, then run this again.
          </div>
        </div>
      )}
      <div className="grid-cards">
        <Stat label="Requests" value={formatCount(result.count)} testId="result-count" />
        <Stat label="Achieved qps" value={formatRate(result.qps)} testId="result-qps" />
        <Stat
          label="Errors"
          value={<span className={result.errors > 0 ? 'run-bad bad-figure' : undefined}>{formatCount(result.errors)}</span>}
          sub={`${formatPercent(errShare)} of requests`}
          testId="result-errors"
        />
        <Stat label="p50" value={formatDuration(lat.p50_us)} sub={imported ? 'as the document recorded' : `${result.primary} time`} />
        <Stat label="p90" value={formatDuration(lat.p90_us)} />
        <Stat label="p99" value={<ThinMark label="p99" note={thinPercentile('p99', lat.count)}>{formatDuration(lat.p99_us)}</ThinMark>} testId="result-p99" />
        <Stat label="p99.9" value={<ThinMark label="p99.9" note={thinPercentile('p99.9', lat.count)}>{formatDuration(lat.p999_us)}</ThinMark>} testId="result-p999" />
        <Stat label="max" value={formatDuration(lat.max_us)} />
        <Stat label="avg" value={formatDuration(lat.avg_us)} sub={`± ${formatDuration(lat.stddev_us)}`} />
        <Stat label="Duration" value={formatSeconds(result.duration_seconds)} />
        <Stat label="Sent" value={formatBytes(result.bytes_sent)} sub={`received ${formatBytes(result.bytes_received)}`} />
        {!imported && (
          <Stat
            label="Shards"
            value={formatCount(result.shards)}
            sub={result.lost_shards > 0 ? <span className="run-bad bad-figure">{result.lost_shards} lost</span> : 'none lost'}
          />
        )}
      </div>
    </section>
  );
}

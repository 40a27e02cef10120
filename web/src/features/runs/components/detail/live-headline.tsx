import type { Schemas } from '@/lib/api-client';
import { formatDuration, formatPercent, formatRate } from '@/lib/format';
import type { Interval } from '../../utils/intervals';
import { estimateThreshold, liveHeadline, targetQps } from '../../utils/live-headline';
import { formatThresholdValue } from '../../utils/thresholds';

interface Props {
  run: Schemas['Run'];
  intervals: readonly Interval[] | undefined;
  kind: 'response' | 'service';
}

/**
 * LiveHeadline is a running run's figures over its last whole seconds (liveHeadline): qps against the spec's
 * target, error share, the worst p99 of the run's latency kind and the largest lag; and each threshold's
 * outcome so far, estimated from the seconds the live stream has brought (estimateThreshold).
 */
export function LiveHeadline({ run, intervals, kind }: Props) {
  const all = intervals ?? [];
  const h = liveHeadline(all, kind);
  const last = all.length ? Math.max(...all.map((iv) => iv.second)) : 0;
  const target = targetQps(run.spec, last);
  const estimates = (run.thresholds ?? []).map((t) => estimateThreshold(t, all, kind));
  return (
    <section className="card stack" style={{ gap: 10 }} aria-label="Live figures">
      <h2>{h ? `Last ${h.seconds} s` : 'Live figures'}</h2>
      {!h ? (
        <p className="muted" style={{ margin: 0 }}>
          Waiting for the first whole second.
        </p>
      ) : (
        <dl className="live-figures" data-first={h.first} data-last={h.last}>
          <div>
            <dt>QPS</dt>
            <dd data-testid="live-qps" data-value={h.qps}>
              {formatRate(h.qps)}
              {target !== undefined && <span className="muted"> of {formatRate(target)} target</span>}
            </dd>
          </div>
          <div>
            <dt>Errors</dt>
            <dd data-testid="live-errors" data-value={h.errorShare} className={h.errorShare > 0 ? 'run-bad bad-figure' : undefined}>
              {formatPercent(h.errorShare)}
            </dd>
          </div>
          <div>
            <dt>p99 ({kind}, worst second)</dt>
            <dd data-testid="live-p99" data-value={h.p99Us}>{formatDuration(h.p99Us)}</dd>
          </div>
          <div>
            <dt>Max lag</dt>
            <dd data-testid="live-lag" data-value={h.maxLagUs}>{formatDuration(h.maxLagUs)}</dd>
          </div>
        </dl>
      )}
      {estimates.length > 0 && (
        <div className="stack" style={{ gap: 4 }}>
          <h3 style={{ margin: 0 }}>Thresholds so far (estimates)</h3>
          <ul className="live-estimates" aria-label="Threshold estimates">
            {estimates.map((e) => (
              <li key={e.expression} data-testid="live-estimate" data-pass={e.pass === undefined ? undefined : String(e.pass)}>
                <code>{e.expression}</code>{' '}
                {e.pass === undefined ? (
                  <span className="muted">judged at the end</span>
                ) : (
                  <>
                    <span className={`badge ${e.pass ? 'ok' : 'bad'}`}>{e.pass ? 'passing' : 'failing'}</span>{' '}
                    <span className="muted">estimate {formatThresholdValue(e.observed!, e.unit!)}</span>
                  </>
                )}
              </li>
            ))}
          </ul>
          <p className="run-chart-note" style={{ margin: 0 }}>
            Estimated from the seconds so far (a percentile as the mean of the seconds&apos;, weighted by their requests); the
            verdict at the end reads the whole run&apos;s histograms.
          </p>
        </div>
      )}
    </section>
  );
}

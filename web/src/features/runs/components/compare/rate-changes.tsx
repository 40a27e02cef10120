import type { Schemas } from '@/lib/api-client';
import { intervalText, percentText, signedPercent, signedPoints, verdictWords } from '../../utils/compare-changes';
import { runColor } from '../../utils/compared-runs';

type Props = { runs: Schemas['ComparedRun'][]; names: string[] };

/**
 * RateChanges lists, for each run compared with the reference, its achieved
 * rate and error rate against the reference's with the 95 % interval and
 * verdict the API estimated: the rate as a ratio, the error rate as a
 * difference in percentage points (defined when either rate is 0).
 */
export function RateChanges({ runs, names }: Props) {
  const rows = runs.map((r, index) => ({ index, qps: r.change?.qps, errors: r.change?.error_rate })).filter((r) => r.index > 0 && (r.qps || r.errors));
  if (rows.length === 0) return null;
  return (
    <div className="stack" data-testid="rate-changes">
      <h3 style={{ margin: 0 }}>Throughput and errors</h3>
      <ul className="summary-list">
        {rows.map(({ index, qps, errors }) => (
          <li key={index} data-testid={`rate-change-${index}`}>
            <span className="swatch" style={{ background: runColor(index) }} aria-hidden /> <strong>{names[index]}</strong>:{' '}
            {qps && (
              <span data-testid="rate-qps">
                qps <span className="mono">{qps.reference_qps.toFixed(1)} → {qps.run_qps.toFixed(1)}</span> ({signedPercent(qps.ratio)}, 95 % interval{' '}
                {intervalText(qps.ratio_low, qps.ratio_high)}: {verdictWords[qps.verdict]})
              </span>
            )}
            {qps && errors && '; '}
            {errors && (
              <span data-testid="rate-errors">
                errors <span className="mono">{percentText(errors.reference)} → {percentText(errors.run)}</span> ({signedPoints(errors.difference)}, 95 %
                interval {signedPoints(errors.difference_low)} … {signedPoints(errors.difference_high)}: {verdictWords[errors.verdict]})
              </span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

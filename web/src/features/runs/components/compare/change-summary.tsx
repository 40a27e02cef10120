import type { Schemas } from '@/lib/api-client';
import { formatDuration } from '@/lib/format';
import { absoluteChange, changeWords, intervalText, largestChanges, verdictWords, withinNoise } from '../../utils/compare-changes';
import { runColor } from '../../utils/compared-runs';
import { RateChanges } from './rate-changes';

type Props = { runs: Schemas['ComparedRun'][]; names: string[] };

/**
 * ChangeSummary heads the comparison with the largest p99 and p99.9 changes
 * against the reference (the first run): absolute values, the ratio in words
 * ("+12 % slower") and, where the API estimated it, the 95 % interval and
 * its verdict, so that good and bad never rest on colour alone.
 */
export function ChangeSummary({ runs, names }: Props) {
  const changes = largestChanges(runs);
  return (
    <section className="card stack compare-summary" aria-labelledby="compare-summary-h" data-testid="compare-summary">
      <h2 id="compare-summary-h" style={{ margin: 0 }}>
        Largest changes against {names[0]}
      </h2>
      {changes.length === 0 ? (
        <p className="muted" style={{ margin: 0 }}>
          No change to report until the reference and another run have results.
        </p>
      ) : (
        <ul className="summary-list">
          {changes.map((c) => {
            const e = c.estimate;
            return (
              <li key={c.label} data-testid={`summary-${c.label}`}>
                <span className="summary-metric">{c.label}</span>{' '}
                <span className="swatch" style={{ background: runColor(c.index) }} aria-hidden /> <strong>{names[c.index]}</strong>:{' '}
                <span className="mono" data-testid="summary-values">
                  {formatDuration(c.referenceUs)} → {formatDuration(c.runUs)}
                </span>{' '}
                (<span data-testid="summary-absolute">{absoluteChange(c.referenceUs, c.runUs)}</span>,{' '}
                <span data-testid="summary-ratio">×{c.ratio.toFixed(2)}</span>){' '}
                <strong className={`delta ${c.ratio > 1 ? 'bad' : c.ratio < 1 ? 'good' : ''}`} data-testid="summary-words">
                  {changeWords(c.ratio)}
                </strong>
                {e && (
                  <span className="muted" data-testid="summary-interval">
                    {' '}
                    · 95 % interval {intervalText(e.ratio_low, e.ratio_high)}: {verdictWords[e.verdict]}
                    {withinNoise(e) && ', within the noise'}
                  </span>
                )}
                {!e && runs[c.index]?.change?.note && (
                  <span className="muted" data-testid="summary-no-interval">
                    {' '}
                    · no interval: {runs[c.index]!.change!.note}
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <RateChanges runs={runs} names={names} />
    </section>
  );
}

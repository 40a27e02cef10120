import type { Schemas } from '@/lib/api-client';
import { intervalText, verdictWords, withinNoise } from '../../utils/compare-changes';

type Props = { estimate: Schemas['PercentileChange']; /** Largest |log ratio| drawn, shared by the table's whiskers. */ span: number };

const width = 120;
const height = 14;

/**
 * ChangeWhisker draws a change's 95 % interval as a whisker around its point
 * on a log-ratio scale centred on "no change", then says it in words: the
 * band ("−3 % … +7 %"), the verdict, and whether the change lies inside the
 * noise band (the interval holds 0).
 */
export function ChangeWhisker({ estimate: e, span }: Props) {
  const x = (ratio: number) => width / 2 + (Math.log(ratio) / span) * (width / 2 - 4);
  const clamp = (v: number) => Math.min(width - 2, Math.max(2, v));
  const lo = clamp(x(e.ratio_low));
  const hi = clamp(x(e.ratio_high));
  const mid = clamp(x(e.ratio));
  return (
    <div className="whisker" data-testid={`interval-p${e.percentile}`}>
      <svg width={width} height={height} aria-hidden className={`whisker-svg ${e.verdict}`}>
        <line x1={width / 2} x2={width / 2} y1={0} y2={height} className="whisker-zero" />
        <line x1={lo} x2={hi} y1={height / 2} y2={height / 2} className="whisker-bar" />
        <line x1={lo} x2={lo} y1={3} y2={height - 3} className="whisker-bar" />
        <line x1={hi} x2={hi} y1={3} y2={height - 3} className="whisker-bar" />
        <circle cx={mid} cy={height / 2} r={3} className="whisker-point" />
      </svg>
      <div className="whisker-text">
        {intervalText(e.ratio_low, e.ratio_high)}
        <br />
        <strong className={`verdict-word ${e.verdict}`}>{verdictWords[e.verdict]}</strong>
        {withinNoise(e) && <span className="muted"> · within the noise</span>}
      </div>
    </div>
  );
}

/** whiskerSpan is the log-ratio half-width that fits every estimate's interval, at least ±10 %. */
export function whiskerSpan(estimates: Schemas['PercentileChange'][]): number {
  let span = Math.log(1.1);
  for (const e of estimates) {
    for (const r of [e.ratio_low, e.ratio_high]) if (r > 0) span = Math.max(span, Math.abs(Math.log(r)));
  }
  return Math.min(span, Math.log(10));
}

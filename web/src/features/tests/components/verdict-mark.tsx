import { markLabel, type TrendMark } from '../utils/trend';

/** markColor is a marker's colour; its shape says the same, for those who cannot tell the colours apart. */
const markColor: Record<TrendMark, string> = {
  passed: 'var(--ok)', failed: 'var(--bad)', inconclusive: 'var(--warn)', degraded: 'var(--chart-4)', error: 'var(--muted)', none: 'var(--muted)',
};

/**
 * MarkShape draws a run's verdict centred on (x, y): a disc for passed, a
 * cross for failed, a diamond for inconclusive, a downward triangle for
 * degraded, a square for error and a ring for no verdict.
 */
export function MarkShape({ mark, x, y, r = 5 }: { mark: TrendMark; x: number; y: number; r?: number }) {
  const color = markColor[mark];
  const edge = { stroke: 'var(--panel)', strokeWidth: 1 };
  switch (mark) {
    case 'passed':
      return <circle cx={x} cy={y} r={r} fill={color} {...edge} />;
    case 'failed':
      return (
        <path d={`M${x - r},${y - r} L${x + r},${y + r} M${x - r},${y + r} L${x + r},${y - r}`} stroke={color} strokeWidth={3}
          strokeLinecap="round" />
      );
    case 'inconclusive':
      return <path d={`M${x},${y - r - 1} L${x + r + 1},${y} L${x},${y + r + 1} L${x - r - 1},${y} Z`} fill={color} {...edge} />;
    case 'degraded':
      return <path d={`M${x - r - 1},${y - r + 1} L${x + r + 1},${y - r + 1} L${x},${y + r + 1} Z`} fill={color} {...edge} />;
    case 'error':
      return <rect x={x - r + 1} y={y - r + 1} width={2 * r - 2} height={2 * r - 2} fill={color} {...edge} />;
    default:
      return <circle cx={x} cy={y} r={r - 1} fill="var(--panel)" stroke={color} strokeWidth={2} />;
  }
}

/** legendMarks are always in the legend; error and none only when a run shows them. */
const legendMarks: TrendMark[] = ['passed', 'failed', 'inconclusive', 'degraded'];

/** VerdictLegend names the markers of the trend's points. */
export function VerdictLegend({ present }: { present: ReadonlySet<TrendMark> }) {
  const marks = [...legendMarks, ...(['error', 'none'] as const).filter((m) => present.has(m))];
  return (
    <ul className="trend-legend" aria-label="Verdict markers">
      {marks.map((m) => (
        <li key={m} data-mark={m}>
          <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">
            <MarkShape mark={m} x={7} y={7} />
          </svg>
          {markLabel[m]}
        </li>
      ))}
    </ul>
  );
}

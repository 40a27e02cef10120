export interface LegendItem {
  label: string;
  color: string;
  dashed?: boolean;
  /** area draws a filled swatch instead of a line. */
  area?: boolean;
}

/**
 * ChartLegend is a plain HTML legend under a chart. Recharts' own legend
 * measures itself after mounting and lays the whole chart out again, which
 * doubles the cost of a first render.
 */
export function ChartLegend({ items }: { items: readonly LegendItem[] }) {
  return (
    <ul className="run-legend">
      {items.map((it) => (
        <li key={it.label}>
          <svg width="18" height="10" aria-hidden>
            {it.area ? (
              <rect x="1" y="1" width="16" height="8" fill={it.color} fillOpacity={0.6} stroke={it.color} />
            ) : (
              <line x1="1" y1="5" x2="17" y2="5" stroke={it.color} strokeWidth="2" strokeDasharray={it.dashed ? '4 3' : undefined} />
            )}
          </svg>
          {it.label}
        </li>
      ))}
    </ul>
  );
}

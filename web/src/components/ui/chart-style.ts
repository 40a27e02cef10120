import { createElement, type CSSProperties, type ReactNode } from 'react';

// Recharts takes colours as props, not CSS; the theme variables keep light and
// dark right in every chart.

const tick = { fill: 'var(--muted)', fontSize: 12 } as const;

/** axisProps: a muted axis line with tick marks, for charts drawn once (compare, tests). */
export const axisProps = {
  stroke: 'var(--muted)',
  tick,
  tickLine: { stroke: 'var(--grid)' },
} as const;

/**
 * liveAxisProps is for charts redrawn every second (the run page): no tick
 * marks, and interval 0 draws every tick without measuring labels to thin
 * them out. X axes that may crowd on a phone set their own interval.
 */
export const liveAxisProps = { stroke: 'var(--border)', tick, tickLine: false, interval: 0 } as const;

export const gridProps = { stroke: 'var(--grid)', strokeDasharray: '3 3' } as const;

// The vertical lines' default generator measures every x label again (even
// with vertical false), so the live grid replaces it too.
const noLines = (): number[] => [];

/** liveGridProps draws horizontal grid lines only, without measuring x labels. */
export const liveGridProps = { ...gridProps, vertical: false, verticalCoordinatesGenerator: noLines } as const;

export const tooltipStyle: CSSProperties = {
  background: 'var(--panel)',
  border: '1px solid var(--border)',
  borderRadius: 6,
  color: 'var(--text)',
  fontSize: 13,
};

export const tooltipLabelStyle: CSSProperties = { color: 'var(--muted)' };

export const legendStyle: CSSProperties = { fontSize: 13 };

/** legendText keeps legend labels in the text colour; the swatch carries the series colour. */
export function legendText(value: ReactNode): ReactNode {
  return createElement('span', { style: { color: 'var(--text)' } }, value);
}

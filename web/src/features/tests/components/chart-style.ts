import { createElement, type CSSProperties, type ReactNode } from 'react';

// Axis, grid and tooltip colours from the theme variables, so charts follow light and dark.
export const axisProps = {
  stroke: 'var(--muted)',
  tick: { fill: 'var(--muted)', fontSize: 12 },
  tickLine: { stroke: 'var(--grid)' },
} as const;

export const gridProps = { stroke: 'var(--grid)', strokeDasharray: '3 3' } as const;

export const tooltipStyle: CSSProperties = {
  background: 'var(--panel)',
  border: '1px solid var(--border)',
  borderRadius: 6,
  color: 'var(--text)',
  fontSize: 13,
};

export const legendStyle: CSSProperties = { fontSize: 13 };

/** legendText keeps legend labels in the text colour; the swatch carries the series colour. */
export function legendText(value: ReactNode): ReactNode {
  return createElement('span', { style: { color: 'var(--text)' } }, value);
}

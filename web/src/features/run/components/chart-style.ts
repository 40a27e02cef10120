import type { CSSProperties } from 'react';

// Recharts takes colours as props; CSS variables keep both themes right.
// Horizontal lines only: the vertical ones' default generator measures every
// x label again (even with vertical false), so it is replaced too.
const noLines = (): number[] => [];
export const gridProps = { stroke: 'var(--grid)', strokeDasharray: '3 3', vertical: false, verticalCoordinatesGenerator: noLines } as const;
// interval 0 draws every tick without measuring labels to thin them out; the
// y axes have few ticks. X axes, which may crowd on a phone, set their own.
export const axisProps = { stroke: 'var(--border)', tick: { fill: 'var(--muted)', fontSize: 12 }, tickLine: false, interval: 0 } as const;
export const tooltipStyle: CSSProperties = {
  background: 'var(--panel)',
  border: '1px solid var(--border)',
  borderRadius: 6,
  color: 'var(--text)',
  fontSize: 13,
};
export const tooltipLabelStyle: CSSProperties = { color: 'var(--muted)' };

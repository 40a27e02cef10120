import type { KeyboardEvent, MouseEvent } from 'react';
import type { LatencyKind } from '@/lib/latency-kind';
import { formatDuration, formatRate } from '@/lib/format';
import { markLabel, type TrendRow } from '../utils/trend';
import { MarkShape } from './verdict-mark';

/** The chart a point is on: its value is p99 or qps. */
export type TrendChart = 'latency' | 'qps';

type Props = {
  chart: TrendChart;
  row: TrendRow;
  index: number;
  x: number;
  y: number;
  kind: LatencyKind;
  /** focusable is the point in the chart's tab order; the arrow keys move to the others. */
  focusable: boolean;
  expanded: boolean;
  onOpen: (el: SVGGElement) => void;
  /** onMove moves the focus by step points (−1 left, +1 right) from el. */
  onMove: (step: number, el: SVGGElement) => void;
};

/**
 * TrendPoint is one run on a trend chart: its verdict's marker, a button
 * that opens the run's menu on a click, Enter or Space.
 */
export function TrendPoint({ chart, row, index, x, y, kind, focusable, expanded, onOpen, onMove }: Props) {
  const value = chart === 'latency' ? `p99 ${formatDuration(row.p99)} (${kind})` : `${formatRate(row.qps)} qps`;
  const click = (e: MouseEvent<SVGGElement>) => {
    e.stopPropagation();
    onOpen(e.currentTarget);
  };
  const key = (e: KeyboardEvent<SVGGElement>) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      e.stopPropagation();
      onOpen(e.currentTarget);
    } else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      e.preventDefault();
      e.stopPropagation();
      onMove(e.key === 'ArrowLeft' ? -1 : 1, e.currentTarget);
    }
  };
  return (
    <g className="trend-point" role="button" tabIndex={focusable ? 0 : -1} aria-haspopup="dialog" aria-expanded={expanded}
      aria-label={`Run ${row.name}: ${markLabel[row.mark]}, ${value}`} data-testid="trend-point" data-chart={chart}
      data-run={row.id} data-verdict={row.mark} data-index={index} onClick={click} onKeyDown={key}>
      <circle cx={x} cy={y} r={10} fill="transparent" />
      <MarkShape mark={row.mark} x={x} y={y} />
    </g>
  );
}

/** LimitLabel names a threshold line at its right end, above it. */
export function LimitLabel({ viewBox, text }: { viewBox?: { x?: number; y?: number; width?: number }; text: string }) {
  const x = (viewBox?.x ?? 0) + (viewBox?.width ?? 0) - 4;
  const y = (viewBox?.y ?? 0) - 4;
  return (
    <text x={x} y={y} textAnchor="end" fontSize={11} fill="var(--bad)" data-testid="trend-threshold">
      {text}
    </text>
  );
}

import type { Schemas } from '@/lib/api-client';
import { formatCount, formatDelta, formatDuration, formatRate } from '@/lib/format';
import { hasResult } from './compared-runs';

type ComparedRun = Schemas['ComparedRun'];

/** Which way a figure improves: latency and errors go down, qps goes up; count is neither. */
export type Better = 'lower' | 'higher' | 'none';

/** How a delta reads: good (--ok), bad (--bad) or neither. */
export type Tone = 'good' | 'bad' | 'neutral';

/** deltaTone colours v against base by which way the figure improves. */
export function deltaTone(base: number | undefined, v: number | undefined, better: Better): Tone {
  if (base === undefined || v === undefined || !Number.isFinite(base) || !Number.isFinite(v)) return 'neutral';
  if (better === 'none' || v === base) return 'neutral';
  const up = v > base;
  return up === (better === 'higher') ? 'good' : 'bad';
}

export type LatencyKey = 'min_us' | 'p50_us' | 'avg_us' | 'p75_us' | 'p90_us' | 'p99_us' | 'p999_us' | 'max_us';
type MetricKey = 'count' | 'qps' | 'errors' | LatencyKey;

export type Metric = { key: MetricKey; label: string; better: Better; format: (v: number | undefined) => string };

/** The latency figures in Fortio's order (min, p50, avg, p75, p90, p99, p99.9, max). */
export const latencyMetrics: { key: LatencyKey; label: string }[] = [
  { key: 'min_us', label: 'min' },
  { key: 'p50_us', label: 'p50' },
  { key: 'avg_us', label: 'avg' },
  { key: 'p75_us', label: 'p75' },
  { key: 'p90_us', label: 'p90' },
  { key: 'p99_us', label: 'p99' },
  { key: 'p999_us', label: 'p99.9' },
  { key: 'max_us', label: 'max' },
];

/** The rows of the comparison table, in order. */
export const tableMetrics: Metric[] = [
  { key: 'count', label: 'Count', better: 'none', format: formatCount },
  { key: 'qps', label: 'QPS', better: 'higher', format: formatRate },
  { key: 'errors', label: 'Errors', better: 'lower', format: formatCount },
  ...latencyMetrics.map((m) => ({ ...m, better: 'lower' as const, format: formatDuration })),
];

/** One cell of the table: the figure, and for every run but the first its delta against the first. */
export type Cell = { text: string; delta?: string; tone: Tone };

/**
 * compareCells lays out the table: one row per metric, one cell per run. A
 * run without a result has no figures; nor, then, any delta.
 */
export function compareCells(runs: ComparedRun[]): { metric: Metric; cells: Cell[] }[] {
  const base = runs[0];
  return tableMetrics.map((metric) => ({
    metric,
    cells: runs.map((r, i) => {
      if (!hasResult(r)) return { text: '–', tone: 'neutral' };
      const v = r[metric.key];
      const cell: Cell = { text: metric.format(v), tone: 'neutral' };
      if (i > 0 && base && hasResult(base)) {
        const b = base[metric.key];
        cell.delta = formatDelta(b, v);
        cell.tone = deltaTone(b, v, metric.better);
      }
      return cell;
    }),
  }));
}

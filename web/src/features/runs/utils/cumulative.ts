// The latency distribution overlay: Fortio histogram buckets turned into a
// cumulative-percent line per run, and several such lines sampled on one
// shared x axis so a tooltip can read every run at the same latency. The
// buckets come from parseFortioHistogram (histogram.ts), the one reader of
// Fortio's histogram.
import type { FortioBucket } from './histogram';

/** One point of a cumulative line: x latency in µs, y percent of requests at or under it. */
export type CumulativePoint = { x: number; y: number };

/** The smallest x drawn, in µs: a log axis cannot show 0. */
export const minLatencyUs = 1;

/**
 * cumulativeSeries turns buckets into a cumulative line: 0% at the first
 * bucket's start, then each bucket's cumulative percent at its end. The
 * line never goes down or left, ends at exactly 100%, and has no x below
 * minLatencyUs, so it can be drawn on a log axis even when Start is 0.
 */
export function cumulativeSeries(buckets: readonly FortioBucket[]): CumulativePoint[] {
  const sorted = buckets.filter((b): b is Required<FortioBucket> => b.percent !== undefined).sort((a, b) => a.endUs - b.endUs);
  if (sorted.length === 0) return [];
  const pts: CumulativePoint[] = [];
  const push = (us: number, percent: number) => {
    const prev = pts[pts.length - 1];
    const x = Math.max(us, minLatencyUs, prev?.x ?? 0);
    const y = Math.min(100, Math.max(percent, 0, prev?.y ?? 0));
    if (prev && prev.x === x && prev.y === y) return;
    pts.push({ x, y });
  };
  push(Math.min(sorted[0]!.startUs, sorted[0]!.endUs), 0);
  for (const b of sorted) push(b.endUs, b.percent);
  // Float sums can end at 99.99…; the last bucket holds the maximum.
  const last = pts[pts.length - 1]!;
  if (last.y !== 100) pts.push({ x: last.x, y: 100 });
  return pts;
}

/** cumulativeAt reads a cumulative line at x: 0 before it, 100 after it, linear in between. */
export function cumulativeAt(pts: CumulativePoint[], x: number): number {
  if (pts.length === 0) return 0;
  if (x < pts[0]!.x) return 0;
  let i = pts.length - 1;
  // The last point at or left of x; with equal x the highest (right-continuous).
  while (i > 0 && pts[i]!.x > x) i--;
  const a = pts[i]!;
  const b = pts[i + 1];
  if (!b || a.x === x || b.x === a.x) return a.y;
  return a.y + ((b.y - a.y) * (x - a.x)) / (b.x - a.x);
}

/** An overlay row: latency x (µs) and run i's cumulative percent under key `r<i>`. */
export type OverlayRow = { x: number } & Record<`r${number}`, number>;

/** overlayCumulative samples every line at the union of their x values. */
export function overlayCumulative(lines: CumulativePoint[][]): OverlayRow[] {
  const xs = [...new Set(lines.flatMap((l) => l.map((p) => p.x)))].sort((a, b) => a - b);
  return xs.map((x) => {
    const row: Record<string, number> = { x };
    lines.forEach((l, i) => {
      if (l.length > 0) row[`r${i}`] = round2(cumulativeAt(l, x));
    });
    return row as OverlayRow;
  });
}

/** logDomain widens [lo, hi] to the round latencies (1, 2, 5 × 10ⁿ µs) around it, so a log axis ends on ticks. */
export function logDomain(lo: number, hi: number): [number, number] {
  if (!(lo > 0) || !(hi >= lo)) return [minLatencyUs, Math.max(hi, minLatencyUs * 10)];
  const steps = (e: number) => [1, 2, 5].map((m) => m * 10 ** e);
  const down = Math.max(...[...steps(Math.floor(Math.log10(lo)) - 1), ...steps(Math.floor(Math.log10(lo)))].filter((v) => v <= lo));
  const up = Math.min(...[...steps(Math.floor(Math.log10(hi))), ...steps(Math.floor(Math.log10(hi)) + 1)].filter((v) => v >= hi));
  return [down, up];
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

import type { Schemas } from '@/lib/api-client';

/** SpectrumPoint is one latency at one percentile: x is 1/(1−p), the HdrHistogram axis. */
export interface SpectrumPoint {
  /** p is the fraction of requests at or below us (0.99 for p99). */
  p: number;
  x: number;
  us: number;
  label: string;
}

const fields: [number, keyof Schemas['LatencySummary'], string][] = [
  [0.5, 'p50_us', 'p50'],
  [0.75, 'p75_us', 'p75'],
  [0.9, 'p90_us', 'p90'],
  [0.99, 'p99_us', 'p99'],
  [0.999, 'p999_us', 'p99.9'],
];

/**
 * spectrumPoints places a latency's percentiles on the 1/(1−p) axis, and
 * its max at the last request's rank, p = 1 − 1/count. A percentile finer
 * than one request in count (p99.9 of 900 requests) is the max itself, so it
 * is left out rather than drawn as if measured.
 */
export function spectrumPoints(s: Schemas['LatencySummary'] | undefined): SpectrumPoint[] {
  if (!s || s.count < 1) return [];
  const out: SpectrumPoint[] = [];
  for (const [p, field, label] of fields) {
    if (1 / (1 - p) > s.count) break;
    out.push({ p, x: 1 / (1 - p), us: s[field] as number, label });
  }
  if (s.count >= 2) {
    const p = 1 - 1 / s.count;
    const last = out[out.length - 1];
    if (!last || p > last.p) out.push({ p, x: s.count, us: s.max_us, label: 'max' });
  }
  return out;
}

/** percentileTicks are the x ticks of a spectrum up to xMax: 50 %, 90 %, 99 %, 99.9 %… */
export function percentileTicks(xMax: number): number[] {
  const out: number[] = [];
  for (let x = 2; x <= Math.max(xMax, 2) * 1.0001; x = x === 2 ? 10 : x * 10) out.push(x);
  return out;
}

/** percentileLabel names the percentile at x = 1/(1−p): 2 → "50%", 1000 → "99.9%". */
export function percentileLabel(x: number): string {
  const pct = (1 - 1 / x) * 100;
  return `${Number(pct.toPrecision(Math.max(2, Math.ceil(Math.log10(x)) + 1)))}%`;
}

/**
 * SpectrumRow is one x of an overlay of spectra: s0, s1, … hold each
 * series' latency there, absent where a series has no point at that x.
 */
export type SpectrumRow = { x: number; label: string; p: number } & { [key: `s${number}`]: number | undefined };

/**
 * overlayRows merges several spectra into one row per x, sorted by x, for
 * one chart with a line per series (s0, s1, …). The fixed percentiles share
 * their x across series; each series' max sits at its own count.
 */
export function overlayRows(series: readonly (readonly SpectrumPoint[])[]): SpectrumRow[] {
  const byX = new Map<number, SpectrumRow>();
  series.forEach((points, i) => {
    for (const pt of points) {
      let row = byX.get(pt.x);
      if (!row) {
        row = { x: pt.x, label: pt.label, p: pt.p };
        byX.set(pt.x, row);
      }
      row[`s${i}`] = pt.us;
    }
  });
  return [...byX.values()].sort((a, b) => a.x - b.x);
}

/** SpectrumTableRow is one percentile of the table view: each series' latency, undefined where it is not resolved. */
export interface SpectrumTableRow {
  label: string;
  values: (number | undefined)[];
}

/**
 * spectrumTable is the table behind an overlay: a row per percentile any
 * series resolves (p50 … p99.9, then max), a value per series. A series with
 * too few requests for a percentile has none there, as on the chart.
 */
export function spectrumTable(series: readonly (readonly SpectrumPoint[])[]): SpectrumTableRow[] {
  const labels = [...fields.map(([, , label]) => label), 'max'];
  const out: SpectrumTableRow[] = [];
  for (const label of labels) {
    const values = series.map((points) => points.find((pt) => pt.label === label)?.us);
    if (values.some((v) => v !== undefined)) out.push({ label, values });
  }
  return out;
}

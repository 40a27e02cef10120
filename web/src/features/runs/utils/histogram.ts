/**
 * The parts of Fortio's DurationHistogram the pages draw: the run page its
 * buckets and percentiles, the compare page each bucket's cumulative percent.
 * The API schema leaves the object open, so parseFortioHistogram checks each
 * field. This is the dashboard's one reader of Fortio's histogram.
 */
export interface FortioHistogram {
  count: number;
  minUs: number;
  maxUs: number;
  avgUs: number;
  stddevUs: number;
  buckets: FortioBucket[];
  percentiles: { percentile: number; valueUs: number }[];
}

/** One bucket of DurationHistogram.Data in µs; percent is Fortio's cumulative percent up to its end, when given. */
export interface FortioBucket {
  startUs: number;
  endUs: number;
  count: number;
  percent?: number;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const rec = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
// Round away float noise from the seconds → µs conversion (0.00214 s → 2140 µs).
const toUs = (seconds: number) => Math.round(seconds * 1e9) / 1e3;

/**
 * parseFortioHistogram reads a Fortio DurationHistogram (seconds) into
 * microseconds; undefined if it is not one. A bucket needs its Start and End
 * and a Count or a Percent; a missing Count counts 0.
 */
export function parseFortioHistogram(v: unknown): FortioHistogram | undefined {
  const h = rec(v);
  if (!h) return undefined;
  const us = (x: unknown) => toUs(num(x) ?? 0);
  const data = Array.isArray(h.Data) ? h.Data : [];
  const buckets: FortioBucket[] = [];
  for (const raw of data) {
    const b = rec(raw);
    const start = num(b?.Start);
    const end = num(b?.End);
    const count = num(b?.Count);
    const percent = num(b?.Percent);
    if (start === undefined || end === undefined || (count === undefined && percent === undefined)) continue;
    buckets.push({ startUs: toUs(start), endUs: toUs(end), count: count ?? 0, ...(percent === undefined ? {} : { percent }) });
  }
  const percentiles: FortioHistogram['percentiles'] = [];
  for (const raw of Array.isArray(h.Percentiles) ? h.Percentiles : []) {
    const p = rec(raw);
    const percentile = num(p?.Percentile);
    const value = num(p?.Value);
    if (percentile !== undefined && value !== undefined) percentiles.push({ percentile, valueUs: toUs(value) });
  }
  return {
    count: num(h.Count) ?? buckets.reduce((s, b) => s + b.count, 0),
    minUs: us(h.Min),
    maxUs: us(h.Max),
    avgUs: us(h.Avg),
    stddevUs: us(h.StdDev),
    buckets,
    percentiles,
  };
}

export interface HistogramRow {
  startUs: number;
  endUs: number;
  count: number;
  /**
   * density is the bucket's count per millisecond of its width: buckets
   * differ in width, so bar heights compare only as densities.
   */
  density: number;
  /** cumulative is the percentage of all values up to this bucket's end. */
  cumulative: number;
}

/**
 * histogramRows turns buckets into chart rows, ordered by start, with the
 * cumulative percentage computed from the counts (so it ends at exactly
 * 100). A zero-width bucket (every value equal) is widened a little so it
 * can be drawn.
 */
export function histogramRows(h: FortioHistogram): HistogramRow[] {
  const buckets = [...h.buckets].filter((b) => b.count > 0).sort((a, b) => a.startUs - b.startUs);
  const total = buckets.reduce((s, b) => s + b.count, 0);
  let seen = 0;
  return buckets.map((b, i) => {
    seen += b.count;
    const endUs = b.endUs > b.startUs ? b.endUs : b.startUs * 1.05 + 1;
    return {
      startUs: b.startUs,
      endUs,
      count: b.count,
      density: (b.count * 1000) / (endUs - b.startUs),
      cumulative: i === buckets.length - 1 ? 100 : (seen * 100) / total,
    };
  });
}

/** logTicks returns 1-2-5 ticks inside [lo, hi] for a log axis, at most about `max` of them. */
export function logTicks(lo: number, hi: number, max = 8): number[] {
  if (!(lo > 0) || !(hi > lo)) return [];
  const steps = [
    [1, 2, 5],
    [1, 3],
    [1],
  ];
  let out: number[] = [];
  for (const mult of steps) {
    out = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
      for (const m of mult) {
        const v = m * 10 ** e;
        if (v >= lo && v <= hi) out.push(Number(v.toPrecision(3)));
      }
    }
    if (out.length <= max) break;
  }
  return out;
}

/** linearTicks returns about `count` round ticks (1, 2 or 5 × 10^n apart) from 0 up to hi. */
export function linearTicks(hi: number, count = 5): number[] {
  if (!(hi > 0)) return [0];
  const raw = hi / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => Math.floor(hi / s) <= count) ?? 10 * mag;
  const out: number[] = [];
  for (let i = 0; i * step <= hi * (1 + 1e-9); i++) out.push(Number((i * step).toPrecision(6)));
  return out;
}

import type { Schemas } from '@/lib/api-client';
import { overlayRows, percentileLabel, percentileTicks, spectrumPoints, spectrumTable } from './spectrum';

const summary = (count: number): Schemas['LatencySummary'] => ({
  count, min_us: 100, avg_us: 400, stddev_us: 50, p50_us: 300, p75_us: 350, p90_us: 500, p99_us: 900, p999_us: 2_000, max_us: 5_000,
});

test('every percentile and the max at the last rank when the count resolves them', () => {
  const pts = spectrumPoints(summary(100_000));
  expect(pts.map((p) => p.label)).toEqual(['p50', 'p75', 'p90', 'p99', 'p99.9', 'max']);
  expect(pts.map((p) => Math.round(p.x))).toEqual([2, 4, 10, 100, 1000, 100_000]);
  expect(pts.map((p) => p.us)).toEqual([300, 350, 500, 900, 2_000, 5_000]);
  expect(pts[5]!.p).toBeCloseTo(0.99999);
});

test('a percentile finer than one request is left to the max', () => {
  // p99.9 of 900 requests is the max: not drawn as a measured point.
  expect(spectrumPoints(summary(900)).map((p) => [p.label, Math.round(p.x)])).toEqual([
    ['p50', 2], ['p75', 4], ['p90', 10], ['p99', 100], ['max', 900],
  ]);
  expect(spectrumPoints(summary(1)).map((p) => p.label)).toEqual([]);
  expect(spectrumPoints(undefined)).toEqual([]);
  expect(spectrumPoints(summary(0))).toEqual([]);
});

test('ticks and labels', () => {
  expect(percentileTicks(100_000)).toEqual([2, 10, 100, 1_000, 10_000, 100_000]);
  expect(percentileTicks(900)).toEqual([2, 10, 100]);
  expect([2, 10, 100, 1_000, 10_000].map(percentileLabel)).toEqual(['50%', '90%', '99%', '99.9%', '99.99%']);
});

test('overlayRows puts shared percentiles in one row and each max at its own count', () => {
  const a = spectrumPoints(summary(100_000));
  const b = spectrumPoints({ ...summary(900), p50_us: 310, max_us: 7_000 });
  const rows = overlayRows([a, b]);
  expect(rows.map((r) => [r.label, Math.round(r.x), r.s0, r.s1])).toEqual([
    ['p50', 2, 300, 310],
    ['p75', 4, 350, 350],
    ['p90', 10, 500, 500],
    ['p99', 100, 900, 900],
    ['max', 900, undefined, 7_000],
    ['p99.9', 1000, 2_000, undefined],
    ['max', 100_000, 5_000, undefined],
  ]);
  expect(overlayRows([])).toEqual([]);
});

test('spectrumTable has a row per percentile any series resolves, and a value per series', () => {
  const a = spectrumPoints(summary(100_000));
  const b = spectrumPoints({ ...summary(900), max_us: 7_000 });
  expect(spectrumTable([a, b, []])).toEqual([
    { label: 'p50', values: [300, 300, undefined] },
    { label: 'p75', values: [350, 350, undefined] },
    { label: 'p90', values: [500, 500, undefined] },
    { label: 'p99', values: [900, 900, undefined] },
    { label: 'p99.9', values: [2_000, undefined, undefined] },
    { label: 'max', values: [5_000, 7_000, undefined] },
  ]);
  expect(spectrumTable([[]])).toEqual([]);
});

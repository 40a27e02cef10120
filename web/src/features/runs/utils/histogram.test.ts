import { histogramRows, linearTicks, logTicks, parseFortioHistogram } from './histogram';

const fortio = {
  Count: 1000,
  Min: 0.0004,
  Max: 0.0123,
  Sum: 1.2,
  Avg: 0.0012,
  StdDev: 0.0008,
  Data: [
    { Start: 0.0004, End: 0.0005, Percent: 10, Count: 100 },
    { Start: 0.0005, End: 0.001, Percent: 60, Count: 500 },
    { Start: 0.001, End: 0.002, Percent: 99, Count: 390 },
    { Start: 0.002, End: 0.0123, Percent: 100, Count: 10 },
  ],
  Percentiles: [
    { Percentile: 50, Value: 0.0009 },
    { Percentile: 99, Value: 0.002 },
  ],
};

describe('parseFortioHistogram', () => {
  it('reads seconds into microseconds', () => {
    const h = parseFortioHistogram(fortio)!;
    expect(h.count).toBe(1000);
    expect(h.minUs).toBeCloseTo(400);
    expect(h.maxUs).toBeCloseTo(12_300);
    expect(h.avgUs).toBeCloseTo(1200);
    expect(h.buckets[1]).toEqual({ startUs: 500, endUs: 1000, count: 500, percent: 60 });
    expect(h.percentiles.map((p) => [p.percentile, Math.round(p.valueUs)])).toEqual([
      [50, 900],
      [99, 2000],
    ]);
  });

  it('refuses what is not a histogram and skips malformed buckets', () => {
    expect(parseFortioHistogram(null)).toBeUndefined();
    expect(parseFortioHistogram([1, 2])).toBeUndefined();
    const h = parseFortioHistogram({ Count: 3, Data: [{ Start: 'x', End: 1, Count: 1 }, { Start: 0.001, End: 0.002, Count: 3 }] })!;
    expect(h.buckets).toEqual([{ startUs: 1000, endUs: 2000, count: 3 }]);
  });

  it('keeps a bucket with a Percent but no Count, counting it 0', () => {
    const h = parseFortioHistogram({ Data: [{ Start: 'x' }, null, { Start: 0, End: 0.001, Percent: 100 }, { Start: 0.001, End: 0.002 }] })!;
    expect(h.buckets).toEqual([{ startUs: 0, endUs: 1000, count: 0, percent: 100 }]);
    expect(h.count).toBe(0);
  });

  it('rounds float noise away in the conversion to microseconds', () => {
    const h = parseFortioHistogram({ Data: [{ Start: 0.00214, End: 0.046399, Percent: 100, Count: 1 }] })!;
    expect(h.buckets[0]).toEqual({ startUs: 2140, endUs: 46399, count: 1, percent: 100 });
  });
});

describe('histogramRows', () => {
  it('counts per bucket with a cumulative percentage ending at 100', () => {
    const rows = histogramRows(parseFortioHistogram(fortio)!);
    expect(rows.map((r) => r.count)).toEqual([100, 500, 390, 10]);
    expect(rows.map((r) => r.cumulative)).toEqual([10, 60, 99, 100]);
    expect(rows[0]!.startUs).toBeCloseTo(400);
  });

  it('gives each bucket its density, count per ms of width', () => {
    // 500 in the 0.5 ms bucket is no denser than 100 in the 0.1 ms one.
    const rows = histogramRows(parseFortioHistogram(fortio)!);
    expect(rows[0]!.density).toBeCloseTo(1000);
    expect(rows[1]!.density).toBeCloseTo(1000);
    expect(rows[2]!.density).toBeCloseTo(390);
    expect(rows[3]!.density).toBeCloseTo(10 / 10.3);
  });

  it('ends at exactly 100 when shares do not add up in floating point', () => {
    const rows = histogramRows({
      count: 3,
      minUs: 1,
      maxUs: 4,
      avgUs: 2,
      stddevUs: 1,
      percentiles: [],
      buckets: [
        { startUs: 3, endUs: 4, count: 1 },
        { startUs: 1, endUs: 2, count: 1 },
        { startUs: 2, endUs: 3, count: 1 },
      ],
    });
    expect(rows.map((r) => r.startUs)).toEqual([1, 2, 3]);
    expect(rows[0]!.cumulative).toBeCloseTo(33.333);
    expect(rows[2]!.cumulative).toBe(100);
  });

  it('widens a bucket of equal values so it has a width', () => {
    const rows = histogramRows({ count: 5, minUs: 100, maxUs: 100, avgUs: 100, stddevUs: 0, percentiles: [], buckets: [{ startUs: 100, endUs: 100, count: 5 }] });
    expect(rows[0]!.endUs).toBeGreaterThan(100);
    expect(rows[0]!.cumulative).toBe(100);
  });

  it('is empty for an empty histogram', () => {
    expect(histogramRows({ count: 0, minUs: 0, maxUs: 0, avgUs: 0, stddevUs: 0, percentiles: [], buckets: [] })).toEqual([]);
  });
});

describe('logTicks', () => {
  it('gives 1-2-5 steps within the range', () => {
    expect(logTicks(300, 12_000)).toEqual([500, 1000, 2000, 5000, 10_000]);
  });
  it('thins out over many decades', () => {
    const t = logTicks(1, 1e9);
    expect(t.length).toBeLessThanOrEqual(10);
    expect(t[0]).toBe(1);
    expect(t).toContain(1e9);
  });
  it('is empty for a range a log axis cannot show', () => {
    expect(logTicks(0, 10)).toEqual([]);
    expect(logTicks(10, 10)).toEqual([]);
  });
});

describe('linearTicks', () => {
  it('steps from 0 in round numbers', () => {
    expect(linearTicks(5470)).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
    expect(linearTicks(187_000)).toEqual([0, 50_000, 100_000, 150_000]);
    expect(linearTicks(12)).toEqual([0, 2.5, 5, 7.5, 10]);
  });
  it('has at least 0', () => {
    expect(linearTicks(0)).toEqual([0]);
  });
});

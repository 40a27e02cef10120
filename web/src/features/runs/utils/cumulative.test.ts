import { cumulativeAt, cumulativeSeries, logDomain, minLatencyUs, overlayCumulative } from './cumulative';
import { parseFortioHistogram, type FortioBucket } from './histogram';

/** Fortio's buckets as the API sends them (seconds), read by the one parser. */
type RawBucket = { Start: number; End: number; Percent: number; Count: number };
const parsed = (data: RawBucket[]): FortioBucket[] => parseFortioHistogram({ Data: data })!.buckets;

// Shaped like a real answer of GET /runs/{run}/result?format=fortio.
const buckets: RawBucket[] = [
  { Start: 0.00214, End: 0.003, Percent: 48.22222222222222, Count: 868 },
  { Start: 0.003, End: 0.004, Percent: 70.44444444444444, Count: 400 },
  { Start: 0.012, End: 0.014, Percent: 80.61111111111111, Count: 1 },
  { Start: 0.04, End: 0.045, Percent: 99.94444444444444, Count: 348 },
  { Start: 0.045, End: 0.046399, Percent: 100, Count: 1 },
];

describe('parseFortioHistogram for the overlay', () => {
  it('keeps the cumulative percent of each bucket, in µs', () => {
    const got = parsed(buckets);
    expect(got).toHaveLength(5);
    expect(got[0]).toEqual({ startUs: 2140, endUs: 3000, count: 868, percent: 48.22222222222222 });
  });
});

describe('cumulativeSeries', () => {
  it('starts at 0% at the first start and puts each cumulative percent at its bucket end, in µs', () => {
    const pts = cumulativeSeries(parsed(buckets));
    expect(pts[0]).toEqual({ x: 2140, y: 0 });
    expect(pts[1]).toEqual({ x: 3000, y: 48.22222222222222 });
    expect(pts[2]).toEqual({ x: 4000, y: 70.44444444444444 });
    expect(pts[pts.length - 1]).toEqual({ x: 46399, y: 100 });
    expect(pts).toHaveLength(6);
  });

  it('is monotone in x and y even when buckets come unsorted or dip', () => {
    const pts = cumulativeSeries(
      parsed([
      { Start: 0.002, End: 0.003, Percent: 60, Count: 6 },
      { Start: 0.001, End: 0.002, Percent: 30, Count: 3 },
      { Start: 0.003, End: 0.004, Percent: 55, Count: 1 },
      { Start: 0.004, End: 0.005, Percent: 100, Count: 4 },
    ]),
    );
    for (let i = 1; i < pts.length; i++) {
      expect(pts[i]!.x).toBeGreaterThanOrEqual(pts[i - 1]!.x);
      expect(pts[i]!.y).toBeGreaterThanOrEqual(pts[i - 1]!.y);
    }
    expect(pts.map((p) => p.y)).toEqual([0, 30, 60, 60, 100]);
  });

  it('ends at exactly 100 when float sums stop short', () => {
    const pts = cumulativeSeries(
      parsed([
      { Start: 0.001, End: 0.002, Percent: 50, Count: 1 },
      { Start: 0.002, End: 0.003, Percent: 99.99999999, Count: 1 },
    ]),
    );
    expect(pts[pts.length - 1]).toEqual({ x: 3000, y: 100 });
  });

  it('never puts x at 0, so a log axis can draw a Start of 0', () => {
    const pts = cumulativeSeries(
      parsed([
      { Start: 0, End: 0.00001, Percent: 40, Count: 4 },
      { Start: 0.00001, End: 0.00002, Percent: 100, Count: 6 },
    ]),
    );
    expect(pts[0]).toEqual({ x: minLatencyUs, y: 0 });
    expect(pts.every((p) => p.x > 0)).toBe(true);
    expect(pts.map((p) => p.x)).toEqual([1, 10, 20]);
  });

  it('handles a histogram whose every value is 0', () => {
    const pts = cumulativeSeries(parsed([{ Start: 0, End: 0, Percent: 100, Count: 3 }]));
    expect(pts).toEqual([
      { x: 1, y: 0 },
      { x: 1, y: 100 },
    ]);
  });

  it('is empty without buckets', () => {
    expect(cumulativeSeries([])).toEqual([]);
  });
});

describe('cumulativeAt', () => {
  const pts = [
    { x: 1000, y: 0 },
    { x: 2000, y: 50 },
    { x: 2000, y: 60 },
    { x: 4000, y: 100 },
  ];
  it('is 0 before the line and 100 after it', () => {
    expect(cumulativeAt(pts, 500)).toBe(0);
    expect(cumulativeAt(pts, 9000)).toBe(100);
  });
  it('interpolates linearly and takes the top of a jump', () => {
    expect(cumulativeAt(pts, 1500)).toBe(25);
    expect(cumulativeAt(pts, 2000)).toBe(60);
    expect(cumulativeAt(pts, 3000)).toBe(80);
  });
});

describe('overlayCumulative', () => {
  it('samples every run at the union of the latencies', () => {
    const a = [
      { x: 1000, y: 0 },
      { x: 3000, y: 100 },
    ];
    const b = [
      { x: 2000, y: 0 },
      { x: 4000, y: 100 },
    ];
    expect(overlayCumulative([a, b])).toEqual([
      { x: 1000, r0: 0, r1: 0 },
      { x: 2000, r0: 50, r1: 0 },
      { x: 3000, r0: 100, r1: 50 },
      { x: 4000, r0: 100, r1: 100 },
    ]);
  });

  it('leaves out a run without a line', () => {
    expect(overlayCumulative([[{ x: 5, y: 100 }], []])).toEqual([{ x: 5, r0: 100 }]);
  });
});

describe('logDomain', () => {
  it('widens to the round latencies around the data', () => {
    expect(logDomain(2140, 46399)).toEqual([2000, 50000]);
    expect(logDomain(46, 30927)).toEqual([20, 50000]);
  });
  it('keeps bounds that are already round', () => {
    expect(logDomain(1000, 5000)).toEqual([1000, 5000]);
  });
  it('stays positive for an empty or zero range', () => {
    expect(logDomain(0, 0)).toEqual([1, 10]);
  });
});

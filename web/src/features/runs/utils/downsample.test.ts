import { downsample, type Row } from './downsample';

function hour(): Row[] {
  const rows: Row[] = [];
  for (let t = 0; t < 3600; t++) {
    rows.push({ t, qps: 200 + (t % 7), p99: 5000 + (t % 13) * 10, max: 9000, target: 200 });
  }
  rows[1234]!.qps = 950; // a burst
  rows[2999]!.p99 = 250_000; // a latency spike
  rows[100]!.qps = 3; // a stall
  rows[3599]!.max = 40_000; // the very last second
  return rows;
}

describe('downsample', () => {
  const keys = ['qps', 'p99', 'max', 'target'];

  it('returns short series unchanged', () => {
    const rows: Row[] = [
      { t: 0, qps: 1 },
      { t: 1, qps: 2 },
    ];
    expect(downsample(rows, keys)).toBe(rows);
  });

  it('shrinks an hour of seconds to at most 600 rows per series', () => {
    const out = downsample(hour(), keys, 600);
    expect(out.length).toBeLessThanOrEqual(600);
    expect(out.length).toBeGreaterThan(500);
    for (const k of keys) expect(out.filter((r) => r[k] !== undefined).length).toBeLessThanOrEqual(600);
  });

  it('keeps peaks and dips of every series', () => {
    const out = downsample(hour(), keys, 600);
    expect(Math.max(...out.map((r) => r.qps!))).toBe(950);
    expect(Math.min(...out.map((r) => r.qps!))).toBe(3);
    expect(Math.max(...out.map((r) => r.p99!))).toBe(250_000);
    expect(Math.max(...out.map((r) => r.max!))).toBe(40_000);
    expect(out.every((r) => r.target === 200)).toBe(true);
  });

  it('keeps rows in time order, spanning the whole run, peaks near their time', () => {
    const out = downsample(hour(), keys, 600);
    for (let i = 1; i < out.length; i++) expect(out[i]!.t).toBeGreaterThanOrEqual(out[i - 1]!.t);
    expect(out[0]!.t).toBe(0);
    expect(out[out.length - 1]!.t).toBe(3599);
    const burst = out.find((r) => r.qps === 950)!;
    expect(Math.abs(burst.t - 1234)).toBeLessThan(12);
  });

  it('puts a bucket minimum before its maximum when it came first', () => {
    const rows: Row[] = [0, 1, 2, 3, 4, 5, 6, 7].map((t) => ({ t, v: [5, 1, 9, 5, 9, 5, 0, 5][t] }));
    const out = downsample(rows, ['v'], 4);
    expect(out.map((r) => r.v)).toEqual([1, 9, 9, 0]);
    expect(out.map((r) => r.t)).toEqual([0, 3, 4, 7]);
  });

  it('leaves a series absent where it has no values', () => {
    const rows: Row[] = Array.from({ length: 10 }, (_, t) => ({ t, a: t, b: t < 5 ? undefined : t }));
    const out = downsample(rows, ['a', 'b'], 4);
    expect(out[0]!.b).toBeUndefined();
    expect(out[3]!.b).toBe(9);
  });
});

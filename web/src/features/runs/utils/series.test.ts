import type { Interval } from './intervals';
import { codeRows, iterationRows, latencyRows, limitedSpans, qpsRows, storedSeconds, targetRate } from './series';

function iv(second: number, over: Partial<Interval> = {}): Interval {
  const lat = (base: number) => ({ p50_us: base, p90_us: base * 2, p99_us: base * 3, max_us: base * 4 });
  return {
    second,
    count: 100,
    errors: 0,
    qps: 100,
    response: lat(1000),
    service: lat(500),
    lag: lat(10),
    ret_codes: { '200': 100 },
    bytes_sent: 0,
    bytes_received: 0,
    snapshots: 2,
    generator_limited: false,
    ...over,
  };
}

describe('targetRate', () => {
  it('is the requested qps without a ramp', () => {
    const f = targetRate({ url: 'http://x/', qps: 200 }, 200)!;
    expect(f(0)).toBe(200);
    expect(f(7)).toBe(200);
  });

  it('is absent for as-fast-as-possible runs', () => {
    expect(targetRate({ url: 'http://x/', qps: 0 }, 0)).toBeUndefined();
  });

  it('follows a ramp from -> to over its length, then holds', () => {
    const f = targetRate({ url: 'http://x/', qps: 100, ramp: { from: 0, to: 100, over: '10s' } }, 100)!;
    expect(f(0)).toBeCloseTo(5); // mean of 0..10 over the first second
    expect(f(4)).toBeCloseTo(45);
    expect(f(9)).toBeCloseTo(95);
    expect(f(10)).toBe(100);
    expect(f(30)).toBe(100);
  });

  it('averages a second that the ramp ends inside', () => {
    const f = targetRate({ url: 'http://x/', ramp: { from: 100, to: 200, over: 2.5 } }, 200)!;
    // [2, 2.5): 180..200 -> mean 190 for half a second; [2.5, 3): 200.
    expect(f(2)).toBeCloseTo(195);
  });

  it('ramps down too, and defaults from to 0', () => {
    expect(targetRate({ url: 'http://x/', ramp: { from: 300, to: 100, over: '2s' } }, 100)!(0)).toBeCloseTo(250);
    expect(targetRate({ url: 'http://x/', ramp: { to: 100, over: '1m' } }, 100)!(0)).toBeCloseTo(100 / 120);
  });
});

describe('chart rows', () => {
  const ivs = [iv(0, { qps: 190 }), iv(1, { qps: 201 }), iv(3, { qps: 150 })];

  it('shapes qps with its target', () => {
    expect(qpsRows(ivs, () => 200)).toEqual([
      { t: 0, qps: 190, limited: 0, target: 200 },
      { t: 1, qps: 201, limited: 0, target: 200 },
      { t: 3, qps: 150, limited: 0, target: 200 },
    ]);
    expect(qpsRows(ivs)[0]).toEqual({ t: 0, qps: 190, limited: 0 });
  });

  it('shapes the chosen latency', () => {
    expect(latencyRows(ivs, 'service')[1]).toEqual({ t: 1, p50: 500, p90: 1000, p99: 1500, max: 2000 });
    expect(latencyRows(ivs, 'lag')[0]!.p99).toBe(30);
  });

  it('shapes codes with failures first and zeros where a code is missing', () => {
    const { rows, codes } = codeRows([
      iv(0, { ret_codes: { '200': 90, '503': 10 }, errors: 10 }),
      iv(1, { ret_codes: { '200': 95, '-1': 5 }, errors: 5 }),
      iv(2, { ret_codes: { '200': 100 } }),
    ]);
    expect(codes.map((c) => [c.code, c.ok, c.total])).toEqual([
      ['503', false, 10],
      ['-1', false, 5],
      ['200', true, 285],
    ]);
    expect(rows[0]).toEqual({ t: 0, errors: 10, code_503: 10, 'code_-1': 0, code_200: 90 });
    expect(rows[2]).toEqual({ t: 2, errors: 0, code_503: 0, 'code_-1': 0, code_200: 100 });
  });

  it('draws a window of seconds per second: its counts over its stored seconds', () => {
    const windows = [iv(0, { seconds: 6, count: 600, ret_codes: { '200': 594, '503': 6 }, errors: 6 }), iv(6, { seconds: 4, ret_codes: { '200': 100 } })];
    const { rows, codes } = codeRows(windows);
    expect(codes.map((c) => [c.code, c.total])).toEqual([
      ['503', 6],
      ['200', 694],
    ]);
    expect(rows).toEqual([
      { t: 0, errors: 1, code_503: 1, code_200: 99 },
      { t: 6, errors: 0, code_503: 0, code_200: 25 },
    ]);
    expect(storedSeconds(windows)).toBe(10);
    expect(storedSeconds([iv(0), iv(1), iv(3)])).toBe(3);
  });
});

describe('limitedSpans', () => {
  it('joins consecutive generator-limited seconds into spans', () => {
    const ivs = [0, 1, 2, 3, 5, 6, 8].map((s) => iv(s, { generator_limited: s !== 3 && s !== 6 }));
    expect(limitedSpans(ivs)).toEqual([
      { from: 0, to: 2 },
      { from: 5, to: 5 },
      { from: 8, to: 8 },
    ]);
  });

  it('spans each window of step seconds', () => {
    const windows = [0, 6, 12, 24].map((s) => iv(s, { seconds: 6, generator_limited: s !== 12 }));
    expect(limitedSpans(windows, 6)).toEqual([
      { from: 0, to: 11 },
      { from: 24, to: 29 },
    ]);
  });

  it('is empty when no second was limited', () => {
    expect(limitedSpans([iv(0), iv(1)])).toEqual([]);
  });

  it('flags the limited seconds in the qps rows', () => {
    expect(qpsRows([iv(0, { generator_limited: true }), iv(1)]).map((r) => r.limited)).toEqual([1, 0]);
  });
});

describe('iterationRows', () => {
  it('takes each second\'s iterations, 0 where a second has none', () => {
    const base = { count: 0, errors: 0, qps: 0, ret_codes: {}, bytes_sent: 0, bytes_received: 0, snapshots: 1, generator_limited: false };
    const lat = { p50_us: 0, p90_us: 0, p99_us: 0, max_us: 0 };
    const ivs = [
      { ...base, second: 0, response: lat, service: lat, lag: lat, iterations: { started: 5, completed: 3, failed: 1 } },
      { ...base, second: 1, response: lat, service: lat, lag: lat },
    ];
    expect(iterationRows(ivs)).toEqual([
      { t: 0, started: 5, completed: 3, failed: 1 },
      { t: 1, started: 0, completed: 0, failed: 0 },
    ]);
    // A window of 5 stored seconds: its iterations per second.
    expect(iterationRows([{ ...ivs[0]!, seconds: 5 }])).toEqual([{ t: 0, started: 1, completed: 0.6, failed: 0.2 }]);
  });
});

import { describe, expect, it } from 'vitest';
import { estimateThreshold, liveHeadline, recentSeconds, targetQps } from './live-headline';
import type { Interval } from './intervals';

function iv(second: number, count: number, errors: number, p99: number, lagMax: number): Interval {
  const l = (p: number) => ({ p50_us: p / 4, p90_us: p / 2, p99_us: p, max_us: p * 2 });
  return {
    second, count, errors, qps: count, response: l(p99), service: l(p99 / 2), lag: { p50_us: 1, p90_us: 2, p99_us: lagMax / 2, max_us: lagMax },
    ret_codes: {}, bytes_sent: 0, bytes_received: 0, snapshots: 2, generator_limited: false,
  };
}

const secs = [iv(0, 100, 0, 10_000, 500), iv(1, 100, 2, 12_000, 700), iv(2, 98, 0, 30_000, 9_000), iv(3, 102, 1, 11_000, 400),
  iv(4, 100, 0, 10_000, 300), iv(5, 100, 1, 9_000, 200), iv(6, 40, 0, 99_000, 99_000)];

describe('recentSeconds', () => {
  it('takes the latest whole seconds, leaving out the newest one', () => {
    expect(recentSeconds([...secs].reverse()).map((s) => s.second)).toEqual([1, 2, 3, 4, 5]);
    expect(recentSeconds(secs.slice(0, 1)).map((s) => s.second)).toEqual([0]);
    expect(recentSeconds([])).toEqual([]);
  });
});

describe('liveHeadline', () => {
  it('sums the last five whole seconds', () => {
    const h = liveHeadline(secs, 'response')!;
    expect(h.seconds).toBe(5);
    expect([h.first, h.last]).toEqual([1, 5]);
    expect(h.qps).toBe(100);
    expect(h.errorShare).toBeCloseTo(4 / 500, 10);
    expect(h.p99Us).toBe(30_000);
    expect(h.maxLagUs).toBe(9_000);
    expect(liveHeadline(secs, 'service')!.p99Us).toBe(15_000);
  });
  it('has nothing before the first second', () => {
    expect(liveHeadline([], 'response')).toBeUndefined();
  });
});

const url = 'http://echo/';

describe('targetQps', () => {
  it('reads qps, a ramp or the current stage', () => {
    expect(targetQps({ url, qps: 200 }, 3)).toBe(200);
    expect(targetQps({ url, qps: 0 }, 3)).toBeUndefined();
    expect(targetQps({ url, ramp: { from: 10, to: 110, over: '10s' } }, 5)).toBe(60);
    expect(targetQps({ url, ramp: { to: 110, over: '10s' } }, 12)).toBe(110);
    const stages = [{ qps: 10, duration: '2s' }, { qps: 50, duration: '1m' }];
    expect(targetQps({ url, stages }, 1)).toBe(10);
    expect(targetQps({ url, stages }, 2)).toBe(50);
    expect(targetQps({ url, stages }, 500)).toBe(50);
  });
});

describe('estimateThreshold', () => {
  const whole = secs.slice(0, 6);
  it('estimates p(99) as the request-weighted mean of the seconds', () => {
    const want = whole.reduce((n, s) => n + s.response.p99_us * s.count, 0) / 600;
    expect(estimateThreshold('p(99) < 20ms', whole, 'response')).toEqual({ expression: 'p(99) < 20ms', observed: want, unit: 'us', pass: true });
    expect(estimateThreshold('p(99) < 10ms', whole, 'response').pass).toBe(false);
    expect(estimateThreshold('service.p(99) <= 7ms', whole, 'response').observed).toBeCloseTo(want / 2, 6);
    expect(estimateThreshold('p(100) < 50ms', whole, 'response')).toMatchObject({ observed: 60_000, pass: false });
    expect(estimateThreshold('service.max < 2s', whole, 'response')).toMatchObject({ observed: 30_000, pass: true });
  });
  it('estimates error_rate and qps over every second', () => {
    expect(estimateThreshold('error_rate < 1%', whole, 'response')).toMatchObject({ observed: 4 / 600, unit: 'ratio', pass: true });
    expect(estimateThreshold('error_rate < 0.5%', whole, 'response').pass).toBe(false);
    expect(estimateThreshold('qps >= 100', whole, 'response')).toMatchObject({ observed: 100, unit: '', pass: true });
  });
  it('leaves forms it cannot estimate to the end', () => {
    expect(estimateThreshold('p(99) < baseline * 1.10', whole, 'response')).toEqual({ expression: 'p(99) < baseline * 1.10' });
    expect(estimateThreshold('p(75) < 10ms', whole, 'response')).toEqual({ expression: 'p(75) < 10ms' });
    expect(estimateThreshold('p(99) < 10ms', [], 'response')).toEqual({ expression: 'p(99) < 10ms' });
  });
});

import { describe, expect, it } from 'vitest';
import type { Schemas } from '@/lib/api-client';
import { lagWarning, thinPercentile } from './measurement';

function lat(p99: number): Schemas['LatencySummary'] {
  return { count: 1000, min_us: 1, avg_us: p99 / 2, stddev_us: 1, p50_us: p99 / 3, p75_us: p99 / 2, p90_us: p99 / 1.5, p99_us: p99, p999_us: p99 * 2, max_us: p99 * 3 };
}

describe('lagWarning', () => {
  it('warns when lag p99 reaches half of service p99', () => {
    expect(lagWarning({ imported: false, service: lat(20_000), lag: lat(10_000) })).toEqual({ lagP99Us: 10_000, serviceP99Us: 20_000 });
    expect(lagWarning({ imported: false, service: lat(20_000), lag: lat(900_000) })).toEqual({ lagP99Us: 900_000, serviceP99Us: 20_000 });
  });
  it('stays quiet below half of service time', () => {
    expect(lagWarning({ imported: false, service: lat(20_000), lag: lat(9_999) })).toBeUndefined();
  });
  it('stays quiet under the 1 ms floor however service time compares', () => {
    expect(lagWarning({ imported: false, service: lat(300), lag: lat(999) })).toBeUndefined();
    expect(lagWarning({ imported: false, service: lat(300), lag: lat(1_000) })).toEqual({ lagP99Us: 1_000, serviceP99Us: 300 });
  });
  it('has nothing to say without lag or for an imported result', () => {
    expect(lagWarning({ imported: false, service: lat(20_000) })).toBeUndefined();
    expect(lagWarning({ service: lat(20_000), lag: lat(50_000), imported: true })).toBeUndefined();
  });
});

describe('thinPercentile', () => {
  it('calls p99.9 of fewer than 1000 requests the maximum', () => {
    expect(thinPercentile('p99.9', 500)).toBe('p99.9 of 500 requests is the maximum: fewer than one request lies beyond it; it needs 10,000.');
  });
  it('counts the requests beyond a thin percentile', () => {
    expect(thinPercentile('p99', 500)).toBe('p99 of 500 requests rests on 5 requests beyond it; it needs 1,000 to be steady.');
    expect(thinPercentile('p99.9', 5_000)).toBe('p99.9 of 5,000 requests rests on 5 requests beyond it; it needs 10,000 to be steady.');
  });
  it('accepts a percentile with ten requests beyond it', () => {
    expect(thinPercentile('p99', 1_000)).toBeUndefined();
    expect(thinPercentile('p99.9', 10_000)).toBeUndefined();
    expect(thinPercentile('p50', 20)).toBeUndefined();
    expect(thinPercentile('p90', 99)).toBe('p90 of 99 requests rests on 9 requests beyond it; it needs 100 to be steady.');
  });
  it('ignores rows that are not percentiles and empty results', () => {
    expect(thinPercentile('max', 5)).toBeUndefined();
    expect(thinPercentile('p99', 0)).toBeUndefined();
  });
});

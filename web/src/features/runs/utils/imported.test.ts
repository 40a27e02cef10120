import type { Schemas } from '@/lib/api-client';
import { bucketRows, headlineLatency, isImported } from './imported';

const lat = (p99: number): Schemas['LatencySummary'] => ({
  count: 10, min_us: 1, avg_us: 2, stddev_us: 1, p50_us: 2, p75_us: 3, p90_us: 4, p99_us: p99, p999_us: 6, max_us: 7,
});

describe('isImported', () => {
  it('trusts the result, and the source before the result loads', () => {
    expect(isImported({ source: 'ui' }, { imported: true })).toBe(true);
    expect(isImported({ source: 'import' })).toBe(true);
    expect(isImported({ source: 'sync' }, null)).toBe(true);
    expect(isImported({ source: 'api' }, { imported: false })).toBe(false);
  });
});

describe('headlineLatency', () => {
  it('reads the primary kind, or service when that kind is absent', () => {
    const base = { primary: 'response', service: lat(5) } as const;
    expect(headlineLatency({ ...base, response: lat(9) } as Schemas['RunResult']).p99_us).toBe(9);
    expect(headlineLatency(base as unknown as Schemas['RunResult']).p99_us).toBe(5);
  });
});

describe('bucketRows', () => {
  it('sorts buckets and labels each with its range in ms', () => {
    expect(
      bucketRows([
        { start_us: 2000, end_us: 3000, count: 4 },
        { start_us: 500, end_us: 2000, count: 7 },
        { start_us: 100_000, end_us: 123_456, count: 1 },
      ]),
    ).toEqual([
      { range: '0.5–2 ms', startMs: 0.5, endMs: 2, count: 7 },
      { range: '2–3 ms', startMs: 2, endMs: 3, count: 4 },
      { range: '100–123.5 ms', startMs: 100, endMs: 123.456, count: 1 },
    ]);
  });

  it('is empty without buckets', () => {
    expect(bucketRows(undefined)).toEqual([]);
  });
});

import type { Schemas } from '@/lib/api-client';

/** latency is a LatencySummary for component tests: p50 up to p75, p99 from p90 to the max. */
export const latency = (p50: number, p99: number): Schemas['LatencySummary'] => ({
  count: 1,
  min_us: 10,
  avg_us: p50,
  stddev_us: 1,
  p50_us: p50,
  p75_us: p50,
  p90_us: p99,
  p99_us: p99,
  p999_us: p99,
  max_us: p99,
});

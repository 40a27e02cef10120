import type { Schemas } from '@/lib/api-client';

/**
 * Measurement warnings: when a result's figures say less than they seem to.
 * The rules are documented in docs/dashboard.md ("Measurement warnings").
 */

/** lagShare is how large lag's p99 may grow against service time's p99 before the generator counts as behind. */
export const lagShare = 0.5;
/** lagFloorUs keeps sub-millisecond lag (scheduler noise against a fast local target) from raising the warning. */
export const lagFloorUs = 1_000;
/** tailSamples is how many samples must lie beyond a percentile for it to be more than a few requests' latency. */
export const tailSamples = 10;

export interface LagWarning {
  lagP99Us: number;
  serviceP99Us: number;
}

/**
 * lagWarning tells when lag rivals service time: lag's p99 is at least half of
 * service time's p99 and at least 1 ms. The sends then left well after their
 * schedule, so response time measures the generator's queue as much as the
 * target. Undefined otherwise, and for results without lag (imported ones).
 */
export function lagWarning(result: Pick<Schemas['RunResult'], 'lag' | 'service' | 'imported'>): LagWarning | undefined {
  if (result.imported || !result.lag) return undefined;
  const lagP99Us = result.lag.p99_us;
  const serviceP99Us = result.service.p99_us;
  if (lagP99Us < lagFloorUs || lagP99Us < lagShare * serviceP99Us) return undefined;
  return { lagP99Us, serviceP99Us };
}

/** The percentiles the result pages show, by label, as fractions. */
const percentiles: Record<string, number> = { p50: 0.5, p75: 0.75, p90: 0.9, p99: 0.99, 'p99.9': 0.999 };

/** beyond is how many of count samples lie above percentile p (a fraction): count × (1 − p). */
function beyond(count: number, p: number): number {
  return count * (1 - p);
}

/**
 * thinPercentile explains a percentile (by its label, "p99.9") that rests on
 * too few samples: fewer than tailSamples lie beyond it, so it is the latency
 * of a handful of requests (of none, when it is the max). Undefined when the
 * label is not a percentile or the count is enough.
 */
export function thinPercentile(label: string, count: number): string | undefined {
  const p = percentiles[label];
  if (p === undefined || count <= 0) return undefined;
  const tail = beyond(count, p);
  if (tail >= tailSamples) return undefined;
  const need = Math.ceil(tailSamples / (1 - p) - 1e-9);
  const n = count.toLocaleString('en-US');
  if (tail < 1) return `${label} of ${n} requests is the maximum: fewer than one request lies beyond it; it needs ${need.toLocaleString('en-US')}.`;
  return `${label} of ${n} requests rests on ${Math.floor(tail)} requests beyond it; it needs ${need.toLocaleString('en-US')} to be steady.`;
}

import type { Schemas } from '@/lib/api-client';
import { durationSeconds } from './duration';
import type { Interval } from './intervals';

/** headlineWindow is how many of the latest whole seconds the live headline reads. */
export const headlineWindow = 5;

export interface LiveHeadline {
  /** seconds is how many seconds the figures cover (up to headlineWindow), from first to last (run seconds). */
  seconds: number;
  first: number;
  last: number;
  qps: number;
  /** errorShare is errors / requests over those seconds; 0 without requests. */
  errorShare: number;
  /** p99Us is the highest per-second p99 of the kind over those seconds. */
  p99Us: number;
  /** maxLagUs is the largest lag (intended to actual send) in those seconds. */
  maxLagUs: number;
}

/**
 * recentSeconds is the latest `window` seconds of a live run, leaving out the newest second while it may still be
 * filling (when an older one exists): its shards report it over the next second.
 */
export function recentSeconds(intervals: readonly Interval[], window = headlineWindow): Interval[] {
  const sorted = [...intervals].sort((a, b) => a.second - b.second);
  const whole = sorted.length > 1 ? sorted.slice(0, -1) : sorted;
  return whole.slice(-window);
}

/** liveHeadline sums the recent seconds: their mean qps, error share, worst p99 of kind and largest lag. */
export function liveHeadline(intervals: readonly Interval[], kind: 'response' | 'service', window = headlineWindow): LiveHeadline | undefined {
  const recent = recentSeconds(intervals, window);
  if (recent.length === 0) return undefined;
  const count = recent.reduce((n, iv) => n + iv.count, 0);
  const errors = recent.reduce((n, iv) => n + iv.errors, 0);
  return {
    seconds: recent.length,
    first: recent[0]!.second,
    last: recent[recent.length - 1]!.second,
    qps: recent.reduce((n, iv) => n + iv.qps, 0) / recent.length,
    errorShare: count > 0 ? errors / count : 0,
    p99Us: Math.max(...recent.map((iv) => iv[kind].p99_us)),
    maxLagUs: Math.max(...recent.map((iv) => iv.lag.max_us)),
  };
}

/** targetQps is the rate the spec asks for at a second of the run: its qps, its ramp's point, or its stage's; undefined in a closed loop. */
export function targetQps(spec: Schemas['RunSpec'], second: number): number | undefined {
  if (spec.stages?.length) {
    let at = 0;
    for (const st of spec.stages) {
      at += durationSeconds(st.duration) ?? 0;
      if (second < at) return st.qps;
    }
    return spec.stages[spec.stages.length - 1]!.qps;
  }
  if (spec.ramp) {
    const over = durationSeconds(spec.ramp.over) ?? 0;
    const from = spec.ramp.from ?? 0;
    if (over <= 0 || second >= over) return spec.ramp.to;
    return from + ((spec.ramp.to - from) * second) / over;
  }
  return spec.qps && spec.qps > 0 ? spec.qps : undefined;
}

export interface ThresholdEstimate {
  expression: string;
  /** observed is the figure so far, in the threshold's unit (µs, a ratio, per second); undefined: judged at the end only. */
  observed?: number;
  unit?: 'us' | 'ratio' | '';
  pass?: boolean;
}

const ops: Record<string, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

const durUnit: Record<string, number> = { us: 1, µs: 1, ms: 1_000, s: 1_000_000 };

/**
 * estimateThreshold judges one threshold on the seconds so far, an estimate: p(50), p(90), p(99) as the
 * request-weighted mean of the seconds' percentiles and p(100) (max) as their maximum; error_rate and qps over all
 * the seconds. Forms it cannot estimate (a baseline, an abort, other percentiles, `and`) are judged only at the end.
 */
export function estimateThreshold(expression: string, intervals: readonly Interval[], primary: 'response' | 'service'): ThresholdEstimate {
  const none = { expression };
  const seen = intervals.filter((iv) => iv.count > 0);
  if (seen.length === 0) return none;
  const count = seen.reduce((n, iv) => n + iv.count, 0);
  const lat = /^\s*(?:(response|service|lag)\.)?(?:p\((\d+(?:\.\d+)?)\)|(max))\s*(<=|<|>=|>)\s*(\d+(?:\.\d+)?)\s*(us|µs|ms|s)\s*$/.exec(expression);
  if (lat) {
    const kind = (lat[1] ?? primary) as 'response' | 'service' | 'lag';
    const field = lat[3] ? 'max_us' : ({ '50': 'p50_us', '90': 'p90_us', '99': 'p99_us', '100': 'max_us' } as const)[lat[2]!];
    if (!field) return none;
    const observed =
      field === 'max_us'
        ? Math.max(...seen.map((iv) => iv[kind].max_us))
        : seen.reduce((n, iv) => n + iv[kind][field] * iv.count, 0) / count;
    const limit = Number(lat[5]) * durUnit[lat[6]!]!;
    return { expression, observed, unit: 'us', pass: ops[lat[4]!]!(observed, limit) };
  }
  const rate = /^\s*(error_rate|qps)\s*(<=|<|>=|>)\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(expression);
  if (rate) {
    const errors = seen.reduce((n, iv) => n + iv.errors, 0);
    const isErr = rate[1] === 'error_rate';
    const observed = isErr ? errors / count : seen.reduce((n, iv) => n + iv.qps, 0) / seen.length;
    const limit = Number(rate[3]) / (rate[4] ? 100 : 1);
    return { expression, observed, unit: isErr ? 'ratio' : '', pass: ops[rate[2]!]!(observed, limit) };
  }
  return none;
}

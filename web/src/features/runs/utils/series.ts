import type { Schemas } from '@/lib/api-client';
import { durationSeconds } from './duration';
import type { Row } from './downsample';
import type { Interval } from './intervals';
import { isOkCode } from './ret-codes';

export type LatencyKind = 'response' | 'service' | 'lag';

/**
 * targetRate returns the requested total qps averaged over each second
 * [s, s+1) of the run, or undefined when the run asks for no rate (as fast
 * as possible). With a ramp the rate goes linearly from `from` to `to` over
 * `over` and holds `to` afterwards (pkg/spec Ramp).
 */
export function targetRate(spec: Schemas['RunSpec'], qpsRequested: number): ((second: number) => number) | undefined {
  const ramp = spec.ramp;
  if (ramp) {
    const from = ramp.from ?? 0;
    const to = ramp.to;
    const over = durationSeconds(ramp.over) ?? 0;
    if (over <= 0) return () => to;
    const at = (t: number) => (t >= over ? to : from + ((to - from) * t) / over);
    // Mean of a piecewise-linear rate over [s, s+1): the ramp part as a trapezoid, the rest flat.
    return (s) => {
      const a = Math.max(0, s);
      const b = a + 1;
      if (a >= over) return to;
      const mid = Math.min(b, over);
      const rampArea = ((at(a) + at(mid)) / 2) * (mid - a);
      return rampArea + to * (b - mid);
    };
  }
  const qps = qpsRequested > 0 ? qpsRequested : (spec.qps ?? 0);
  return qps > 0 ? () => qps : undefined;
}

/**
 * qpsRows shapes the achieved rate per second, with the target when there is one, and `limited` 1 for a
 * second in which the load generator was the bottleneck (generator_limited), else 0.
 */
export function qpsRows(intervals: readonly Interval[], target?: (second: number) => number): Row[] {
  return intervals.map((iv) => {
    const r: Row = { t: iv.second, qps: iv.qps, limited: iv.generator_limited ? 1 : 0 };
    if (target) r.target = target(iv.second);
    return r;
  });
}

/** perSecond is how many seconds a row's counts span: 1, or a window's stored seconds (GET /runs/{run}/intervals?step=N). */
function perSecond(iv: Interval): number {
  return iv.seconds ?? 1;
}

/**
 * iterationRows shapes a scenario run's iterations per second: started, completed and failed (0 in a second
 * without), a window's counts divided by its seconds.
 */
export function iterationRows(intervals: readonly Interval[]): Row[] {
  return intervals.map((iv) => ({
    t: iv.second,
    started: (iv.iterations?.started ?? 0) / perSecond(iv),
    completed: (iv.iterations?.completed ?? 0) / perSecond(iv),
    failed: (iv.iterations?.failed ?? 0) / perSecond(iv),
  }));
}

/** storedSeconds counts the seconds intervals hold: each plain second, and each window's stored seconds. */
export function storedSeconds(intervals: readonly Interval[]): number {
  return intervals.reduce((n, iv) => n + perSecond(iv), 0);
}

/** A run of consecutive seconds, from `from` to `to` inclusive. */
export interface SecondSpan {
  from: number;
  to: number;
}

/**
 * limitedSpans returns the generator-limited seconds of intervals (sorted by second) as runs of consecutive
 * seconds, in order: what a chart shades and its text names. With step above 1 each row is a window of step
 * seconds from its second on.
 */
export function limitedSpans(intervals: readonly Interval[], step = 1): SecondSpan[] {
  const out: SecondSpan[] = [];
  for (const iv of intervals) {
    if (!iv.generator_limited) continue;
    const last = out[out.length - 1];
    const to = iv.second + step - 1;
    if (last && iv.second === last.to + 1) last.to = to;
    else out.push({ from: iv.second, to });
  }
  return out;
}

export const latencyKeys = ['p50', 'p90', 'p99', 'max'] as const;

/** latencyRows shapes one latency's per-second percentiles, in microseconds. */
export function latencyRows(intervals: readonly Interval[], kind: LatencyKind): Row[] {
  return intervals.map((iv) => {
    const l = iv[kind];
    return { t: iv.second, p50: l.p50_us, p90: l.p90_us, p99: l.p99_us, max: l.max_us };
  });
}

export interface CodeSeries {
  /** key is the row key of the code's series. */
  key: string;
  code: string;
  ok: boolean;
  total: number;
}

/**
 * codeRows shapes results per second by code: one series per code seen
 * (failures first, then by total, largest first) and the errors line, a
 * window's counts divided by its seconds.
 * A code missing from a second counts 0 there, so the stack stays whole.
 */
export function codeRows(intervals: readonly Interval[]): { rows: Row[]; codes: CodeSeries[] } {
  const totals = new Map<string, number>();
  for (const iv of intervals) {
    for (const [code, n] of Object.entries(iv.ret_codes)) totals.set(code, (totals.get(code) ?? 0) + n);
  }
  const codes: CodeSeries[] = [...totals]
    .map(([code, total]) => ({ key: `code_${code}`, code, ok: isOkCode(code), total }))
    .sort((a, b) => Number(a.ok) - Number(b.ok) || b.total - a.total || a.code.localeCompare(b.code));
  const rows = intervals.map((iv) => {
    const r: Row = { t: iv.second, errors: iv.errors / perSecond(iv) };
    for (const c of codes) r[c.key] = (iv.ret_codes[c.code] ?? 0) / perSecond(iv);
    return r;
  });
  return { rows, codes };
}

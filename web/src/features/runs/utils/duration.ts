import type { Schemas } from '@/lib/api-client';

const units: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  'µs': 1e-6, // U+00B5, what Go prints
  'μs': 1e-6, // U+03BC, which Go also accepts
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * durationSeconds reads a spec Duration, a Go duration string ("1m30s",
 * "250ms") or a number of seconds, as seconds; undefined when absent or
 * malformed.
 */
export function durationSeconds(d: Schemas['Duration'] | undefined | null): number | undefined {
  if (d === undefined || d === null) return undefined;
  if (typeof d === 'number') return Number.isFinite(d) ? d : undefined;
  let s = d.trim();
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  let total = 0;
  part.lastIndex = 0;
  while (part.lastIndex < s.length) {
    const m = part.exec(s);
    if (!m) return undefined;
    total += Number(m[1]) * units[m[2]!]!;
  }
  return sign * total;
}

/**
 * plannedSeconds is how long a run is meant to send, from its spec: the
 * duration, or undefined when the run ends by count or by a stop.
 */
export function plannedSeconds(spec: Schemas['RunSpec']): number | undefined {
  if (spec.until_stopped || (spec.count !== undefined && spec.count > 0)) return undefined;
  const d = durationSeconds(spec.duration);
  return d !== undefined && d > 0 ? d : undefined;
}

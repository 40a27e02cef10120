import type { Interval } from './intervals';

const kinds = ['response', 'service', 'lag'] as const;
const stats = ['p50_us', 'p90_us', 'p99_us', 'max_us'] as const;

/** cell quotes a CSV field when it holds a comma, a quote or a line break (RFC 4180). */
function cell(v: string | number): string {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** byCode orders result codes numerically first (-1, 200, 503), then by name (SERVING). */
function byCode(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  if (Number.isFinite(na)) return -1;
  if (Number.isFinite(nb)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * intervalsCsv writes a run's seconds as CSV, one row per second as
 * GET /runs/{run}/intervals gives them: the second, count, errors, qps, the
 * p50/p90/p99/max of response time, service time and lag in microseconds,
 * bytes sent and received, whether the second was generator limited (1 or
 * 0), then a column per result code any second holds
 * (`code_200`), 0 where a second has none. Lines end with CRLF.
 */
export function intervalsCsv(intervals: readonly Interval[]): string {
  const codes = [...new Set(intervals.flatMap((iv) => Object.keys(iv.ret_codes ?? {})))].sort(byCode);
  const head = [
    'second', 'count', 'errors', 'qps',
    ...kinds.flatMap((k) => stats.map((s) => `${k}_${s}`)),
    'bytes_sent', 'bytes_received', 'generator_limited',
    ...codes.map((c) => `code_${c}`),
  ];
  const rows = intervals.map((iv) => [
    iv.second, iv.count, iv.errors, iv.qps,
    ...kinds.flatMap((k) => stats.map((s) => iv[k][s])),
    iv.bytes_sent, iv.bytes_received, iv.generator_limited ? 1 : 0,
    ...codes.map((c) => iv.ret_codes?.[c] ?? 0),
  ]);
  return [head, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

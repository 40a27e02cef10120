import type { Schemas } from '@/lib/api-client';
import { formatDuration, formatPercent, formatRate } from '@/lib/format';

export type ThresholdResult = Schemas['ThresholdResult'];

/** formatThresholdValue shows an observed value or a limit in the threshold's unit. */
export function formatThresholdValue(v: number, unit: ThresholdResult['unit']): string {
  if (unit === 'us') return formatDuration(v);
  if (unit === 'ratio') return formatPercent(v);
  return formatRate(v);
}

export interface ThresholdRow {
  expression: string;
  metric: string;
  observed: string;
  limit: string;
  outcome: 'pass' | 'fail' | 'error' | 'inconclusive';
  error?: string;
  /** interval is a confidence form's estimate, "+12.0 % (95 % CI +7.0 % to +17.0 %)", and why it is inconclusive. */
  interval?: string;
}

/** signedPercent writes a ratio as a change: 1.12 is "+12.0 %". */
function signedPercent(r: number): string {
  const v = (r - 1) * 100;
  return `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(1)} %`;
}

/**
 * formatEstimate states a confidence form's ratio with its interval, the
 * run-to-run spread a pooled baseline measured (which the interval includes)
 * and, when inconclusive, the note (how much longer to run); undefined for
 * other forms.
 */
export function formatEstimate(t: ThresholdResult): string | undefined {
  const x = t.estimate;
  const note = t.inconclusive && t.note ? t.note : undefined;
  if (!x) return note;
  const text = x.ratio > 0 ? `${signedPercent(x.ratio)} (${x.confidence} % CI ${signedPercent(x.ratio_low)} to ${signedPercent(x.ratio_high)})` : undefined;
  const spread = x.spread_runs ? `runs differ by ${((x.spread ?? 0) * 100).toFixed(1)} % from run to run (${x.spread_runs} pooled runs)` : undefined;
  return [text, spread, note].filter(Boolean).join('; ') || undefined;
}

/**
 * thresholdRows pairs a run's thresholds with their outcomes. Before the run
 * is judged (or when it never is, e.g. canceled) every row is pending:
 * outcome undefined, values blank.
 */
export function thresholdRows(thresholds: string[], results: ThresholdResult[] | undefined): (ThresholdRow | { expression: string; pending: true })[] {
  if (!results) return thresholds.map((expression) => ({ expression, pending: true as const }));
  return results.map((t) => ({
    expression: t.expression,
    metric: t.metric,
    observed: t.error ? '–' : formatThresholdValue(t.observed, t.unit),
    limit: t.error ? '–' : formatThresholdValue(t.limit, t.unit),
    outcome: t.error ? 'error' : t.inconclusive ? 'inconclusive' : t.pass ? 'pass' : 'fail',
    error: t.error,
    interval: formatEstimate(t),
  }));
}

/** thresholdCounts is "2 passed, 1 failed" for a header. */
export function thresholdCounts(results: ThresholdResult[]): string {
  const passed = results.filter((t) => t.pass && !t.error).length;
  const errors = results.filter((t) => t.error).length;
  const unsure = results.filter((t) => t.inconclusive && !t.error).length;
  const failed = results.length - passed - errors - unsure;
  const parts = [`${passed} passed`];
  if (failed > 0) parts.push(`${failed} failed`);
  if (unsure > 0) parts.push(`${unsure} inconclusive`);
  if (errors > 0) parts.push(`${errors} not evaluated`);
  return parts.join(', ');
}

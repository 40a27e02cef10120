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
  outcome: 'pass' | 'fail' | 'error';
  error?: string;
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
    outcome: t.error ? 'error' : t.pass ? 'pass' : 'fail',
    error: t.error,
  }));
}

/** thresholdCounts is "2 passed, 1 failed" for a header. */
export function thresholdCounts(results: ThresholdResult[]): string {
  const passed = results.filter((t) => t.pass && !t.error).length;
  const errors = results.filter((t) => t.error).length;
  const failed = results.length - passed - errors;
  const parts = [`${passed} passed`];
  if (failed > 0) parts.push(`${failed} failed`);
  if (errors > 0) parts.push(`${errors} not evaluated`);
  return parts.join(', ');
}

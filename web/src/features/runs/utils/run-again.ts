import type { Schemas } from '@/lib/api-client';

type Run = Pick<Schemas['Run'], 'project_id' | 'name' | 'spec' | 'labels' | 'thresholds'>;

/** The value the API stores in place of a secret (pkg/spec/redact.go). */
export const redactedValue = 'REDACTED';

/**
 * redactedPaths lists where a run's stored spec holds the API's placeholder
 * for a secret (a secret header's value, URL credentials, a secret query
 * parameter): a run started again from that spec would send the placeholder
 * instead. Paths are dotted, with array indexes: `headers.0`, `url`.
 */
export function redactedPaths(v: unknown, path = ''): string[] {
  if (typeof v === 'string') return v.includes(redactedValue) ? [path] : [];
  if (Array.isArray(v)) return v.flatMap((x, i) => redactedPaths(x, path ? `${path}.${i}` : String(i)));
  if (v !== null && typeof v === 'object') {
    return Object.entries(v).flatMap(([k, x]) => redactedPaths(x, path ? `${path}.${k}` : k));
  }
  return [];
}

/**
 * runAgainBody is the POST /runs body that starts a run like this one: its
 * spec inline (a stored test may have changed since), with its name, labels
 * and thresholds, from the dashboard.
 */
export function runAgainBody(run: Run): Schemas['RunCreate'] {
  const body: Schemas['RunCreate'] = { project: run.project_id, spec: run.spec, source: 'ui' };
  if (run.name) body.name = run.name;
  if (Object.keys(run.labels ?? {}).length > 0) body.labels = run.labels;
  if ((run.thresholds ?? []).length > 0) body.thresholds = run.thresholds;
  return body;
}

/** testFromRun is the POST /tests body that stores this run's spec, labels and thresholds as a test named name. */
export function testFromRun(run: Run, name: string): Schemas['TestCreate'] {
  const body: Schemas['TestCreate'] = { project: run.project_id, name, spec: run.spec };
  if (Object.keys(run.labels ?? {}).length > 0) body.labels = run.labels;
  if ((run.thresholds ?? []).length > 0) body.thresholds = run.thresholds;
  return body;
}

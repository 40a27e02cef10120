import { api, unwrap } from '../api-client';
import type { operations } from '../api-schema';

/** The part of GET /runs's query the dashboard sends. */
export type RunsQuery = Pick<NonNullable<operations['listRuns']['parameters']['query']>, 'project' | 'test' | 'status' | 'label' | 'cursor' | 'limit'>;

/**
 * serializeRunsQuery writes GET /runs's query as the API documents it:
 * `status` comma-separated, `label` repeated; empty values are left out.
 */
export function serializeRunsQuery(q: RunsQuery): string {
  const p = new URLSearchParams();
  if (q.project) p.set('project', q.project);
  if (q.test) p.set('test', q.test);
  if (q.status && q.status.length > 0) p.set('status', q.status.join(','));
  for (const l of q.label ?? []) p.append('label', l);
  if (q.cursor) p.set('cursor', q.cursor);
  if (q.limit) p.set('limit', String(q.limit));
  return p.toString();
}

/**
 * listRuns fetches one page of runs, newest first. The runs feature pages
 * through them and picks completed ones to compare; the tests feature lists
 * a test's recent runs.
 */
export async function listRuns(query: RunsQuery, signal?: AbortSignal) {
  return unwrap(await api.GET('/runs', { params: { query }, querySerializer: serializeRunsQuery, signal }));
}

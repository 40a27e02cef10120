import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { anyActive } from '@/lib/run-status';
import type { RunFilters } from '../utils/run-filters';

/** The server-side part of the filters (the free text is applied to loaded rows). */
export type RunListQuery = Pick<RunFilters, 'status' | 'test' | 'labels'> & { project: string };

export const runsPageSize = 50;

/**
 * serializeRunsQuery writes GET /runs's query as the API documents it:
 * `status` comma-separated, `label` repeated.
 */
export function serializeRunsQuery(q: { project?: string; test?: string; status?: string[]; label?: string[]; cursor?: string; limit?: number }): string {
  const p = new URLSearchParams();
  if (q.project) p.set('project', q.project);
  if (q.test) p.set('test', q.test);
  if (q.status && q.status.length > 0) p.set('status', q.status.join(','));
  for (const l of q.label ?? []) p.append('label', l);
  if (q.cursor) p.set('cursor', q.cursor);
  if (q.limit) p.set('limit', String(q.limit));
  return p.toString();
}

export async function listRuns(q: RunListQuery, cursor?: string, signal?: AbortSignal) {
  return unwrap(
    await api.GET('/runs', {
      params: {
        query: {
          project: q.project || undefined,
          test: q.test || undefined,
          status: q.status.length > 0 ? q.status : undefined,
          label: q.labels.length > 0 ? q.labels : undefined,
          cursor,
          limit: runsPageSize,
        },
      },
      querySerializer: serializeRunsQuery,
      signal,
    }),
  );
}

/**
 * runsQuery pages through the runs with "Load more", and refreshes every
 * 2 s while a loaded run is not yet terminal.
 */
export function runsQuery(q: RunListQuery) {
  return infiniteQueryOptions({
    queryKey: ['runs', 'list', q.project, { status: q.status, test: q.test, labels: q.labels }],
    queryFn: ({ pageParam, signal }) => listRuns(q, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval: (query) => (anyActive(query.state.data?.pages.flatMap((p) => p.items) ?? []) ? 2_000 : false),
  });
}

export function useRuns(q: RunListQuery) {
  return useInfiniteQuery(runsQuery(q));
}

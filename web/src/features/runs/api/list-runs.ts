import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { runKeys, type RunListKey } from '@/lib/query-keys';
import { anyActive } from '@/lib/run-status';

/** The server-side part of the filters (the free text is applied to loaded rows). */
export type RunListQuery = RunListKey;

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
    queryKey: runKeys.list(q),
    queryFn: ({ pageParam, signal }) => listRuns(q, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval: (query) => (anyActive(query.state.data?.pages.flatMap((p) => p.items) ?? []) ? 2_000 : false),
  });
}

export function useRuns(q: RunListQuery) {
  return useInfiniteQuery(runsQuery(q));
}

/** How many recent runs the compare page's picker offers. */
const pickLimit = 30;

/** listCompletedRuns reads one page of a project's newest completed runs. */
export async function listCompletedRuns(project: string) {
  return unwrap(await api.GET('/runs', { params: { query: { project, status: ['completed'], limit: pickLimit } } }));
}

/** The compare page's picker: the newest completed runs, one page. */
export function completedRunsQuery(project: string) {
  return queryOptions({ queryKey: runKeys.completed(project, pickLimit), queryFn: () => listCompletedRuns(project) });
}

export function useCompletedRuns(project: string) {
  return useQuery(completedRunsQuery(project));
}

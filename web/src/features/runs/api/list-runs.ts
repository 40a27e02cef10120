import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { listRuns } from '@/lib/api/list-runs';
import { runKeys, type RunListKey } from '@/lib/query-keys';
import { anyActive } from '@/lib/run-status';

/** The server-side part of the filters (the free text is applied to loaded rows). */
export type RunListQuery = RunListKey;

export const runsPageSize = 50;

/**
 * runsQuery pages through the runs with "Load more", and refreshes every
 * 2 s while a loaded run is not yet terminal.
 */
export function runsQuery(q: RunListQuery) {
  return infiniteQueryOptions({
    queryKey: runKeys.list(q),
    queryFn: ({ pageParam, signal }) =>
      listRuns({ project: q.project, test: q.test, status: q.status, label: q.labels, cursor: pageParam, limit: runsPageSize }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval: (query) => (anyActive(query.state.data?.pages.flatMap((p) => p.items) ?? []) ? 2_000 : false),
  });
}

export function useRuns(q: RunListQuery) {
  return useInfiniteQuery(runsQuery(q));
}

/** How many recent runs the compare page's picker offers. */
const pickLimit = 100;

/** The compare page's picker: the newest completed runs, one page. */
export function completedRunsQuery(project: string) {
  return queryOptions({ queryKey: runKeys.completed(project, pickLimit), queryFn: () => listRuns({ project, status: ['completed'], limit: pickLimit }) });
}

export function useCompletedRuns(project: string) {
  return useQuery(completedRunsQuery(project));
}

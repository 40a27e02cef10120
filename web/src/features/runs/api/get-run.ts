import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { isTerminal } from '@/lib/run-status';

export async function getRun(runId: string) {
  return unwrap(await api.GET('/runs/{run}', { params: { path: { run: runId } } }));
}

/**
 * runQuery reads one run. With pollWhileActive (the run page) it reads it
 * again every 10 s until it ends: the live stream patches its status as it
 * changes, and the slow refetch is only a safety net for a stream that cannot
 * connect. The compare page reads it once.
 */
export const runQuery = (runId: string, pollWhileActive = false) =>
  queryOptions({
    queryKey: runKeys.detail(runId),
    queryFn: () => getRun(runId),
    refetchInterval: pollWhileActive ? (q) => (q.state.data && !isTerminal(q.state.data.status) ? 10_000 : false) : false,
  });

export function useRun(runId: string, pollWhileActive = false) {
  return useQuery(runQuery(runId, pollWhileActive));
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { isTerminal } from '@/lib/run-status';

export const runKey = (runId: string) => ['runs', runId] as const;

export async function getRun(runId: string) {
  return unwrap(await api.GET('/runs/{run}', { params: { path: { run: runId } } }));
}

/**
 * The live stream patches this query's status as it changes; the slow
 * refetch is only a safety net for a stream that cannot connect.
 */
export const runQuery = (runId: string) =>
  queryOptions({
    queryKey: runKey(runId),
    queryFn: () => getRun(runId),
    refetchInterval: (q) => (q.state.data && !isTerminal(q.state.data.status) ? 10_000 : false),
  });

export function useRun(runId: string) {
  return useQuery(runQuery(runId));
}

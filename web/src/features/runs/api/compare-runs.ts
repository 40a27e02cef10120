import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { anyActive } from '@/lib/run-status';

export async function compareRuns(ids: string[]) {
  return unwrap(await api.GET('/runs/compare', { params: { query: { ids: ids.join(',') } } }));
}

export function compareRunsQuery(ids: string[]) {
  return queryOptions({
    queryKey: runKeys.compare(ids),
    queryFn: () => compareRuns(ids),
    // A run still going gets its figures when it ends: look again until then.
    refetchInterval: (q) => (anyActive(q.state.data?.items ?? []) ? 3_000 : false),
  });
}

/** useCompareRuns compares 2 to 20 runs; it does not ask with fewer. */
export function useCompareRuns(ids: string[]) {
  return useQuery({ ...compareRunsQuery(ids), enabled: ids.length >= 2 });
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

/** getFortioResult fetches a finished run's result as Fortio's JSON, for its histogram buckets. */
export async function getFortioResult(runId: string) {
  return unwrap(await api.GET('/runs/{run}/result', { params: { path: { run: runId }, query: { format: 'fortio' } } }));
}

export function fortioResultQuery(runId: string) {
  // A final result does not change.
  return queryOptions({ queryKey: ['runs', runId, 'result', 'fortio'], queryFn: () => getFortioResult(runId), staleTime: Infinity });
}

export function useFortioResult(runId: string, enabled: boolean) {
  return useQuery({ ...fortioResultQuery(runId), enabled });
}

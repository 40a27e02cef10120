import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';

/** getRunResult returns the run's merged result, or null while it has none (409). */
export async function getRunResult(runId: string): Promise<Schemas['RunResult'] | null> {
  const r = await api.GET('/runs/{run}/result', { params: { path: { run: runId }, query: { format: 'barrage' } } });
  if (r.response.status === 409) return null;
  return unwrap(r) as Schemas['RunResult'];
}

/** A result never changes once stored; ask only when the run has ended. */
export const runResultQuery = (runId: string, enabled: boolean) =>
  queryOptions({ queryKey: runKeys.result(runId), queryFn: () => getRunResult(runId), enabled, staleTime: Infinity });

export function useRunResult(runId: string, enabled: boolean) {
  return useQuery(runResultQuery(runId, enabled));
}

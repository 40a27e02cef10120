import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

export async function getRun(runId: string) {
  return unwrap(await api.GET('/runs/{run}', { params: { path: { run: runId } } }));
}

export function runQuery(runId: string) {
  return queryOptions({ queryKey: ['runs', runId], queryFn: () => getRun(runId) });
}

export function useRun(runId: string) {
  return useQuery(runQuery(runId));
}

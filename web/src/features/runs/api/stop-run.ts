import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';

export async function stopRun(runId: string) {
  return unwrap(await api.POST('/runs/{run}/stop', { params: { path: { run: runId } } }));
}

/** useStopRun stops a run and puts the answer (the run, now stopping or canceled) in the cache. */
export function useStopRun(runId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => stopRun(runId),
    onSuccess: (run) => qc.setQueryData(runKeys.detail(runId), run),
  });
}

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';

export async function deleteRun(runId: string, force: boolean) {
  return unwrap(await api.DELETE('/runs/{run}', { params: { path: { run: runId }, query: force ? { force } : {} } }));
}

/** useDeleteRun deletes a finished run (force: a pinned run or a baseline too) and drops it from every cached list. */
export function useDeleteRun(runId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (force: boolean) => deleteRun(runId, force),
    onSuccess: async () => {
      qc.removeQueries({ queryKey: runKeys.detail(runId) });
      await qc.invalidateQueries({ queryKey: runKeys.lists() });
    },
  });
}

export async function setPinned(runId: string, pinned: boolean) {
  const params = { params: { path: { run: runId } } };
  return unwrap(pinned ? await api.PUT('/runs/{run}/pin', params) : await api.DELETE('/runs/{run}/pin', params));
}

/** usePinRun pins or unpins a run and puts the answer in the cache. */
export function usePinRun(runId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (pinned: boolean) => setPinned(runId, pinned),
    onSuccess: (run) => qc.setQueryData(runKeys.detail(runId), run),
  });
}

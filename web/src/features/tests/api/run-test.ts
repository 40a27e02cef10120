import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { runKeys, testKeys } from '@/lib/query-keys';

/** runTest starts a run of a stored test from the dashboard. */
export async function runTest(testId: string) {
  return unwrap(await api.POST('/runs', { body: { test: testId, source: 'ui' } }));
}

export function useRunTest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: runTest,
    onSuccess: (run, testId) => {
      qc.setQueryData(runKeys.detail(run.id), run);
      void qc.invalidateQueries({ queryKey: runKeys.lists() });
      void qc.invalidateQueries({ queryKey: testKeys.trend(testId) });
      return qc.invalidateQueries({ queryKey: testKeys.runs(testId) });
    },
  });
}

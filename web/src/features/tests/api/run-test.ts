import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createRun } from '@/lib/api/create-run';
import { runKeys, testKeys } from '@/lib/query-keys';

/** useRunTest starts a run of a stored test from the dashboard, and refreshes the lists it shows up in. */
export function useRunTest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (testId: string) => createRun({ body: { test: testId, source: 'ui' } }),
    onSuccess: (run, testId) => {
      qc.setQueryData(runKeys.detail(run.id), run);
      void qc.invalidateQueries({ queryKey: runKeys.lists() });
      void qc.invalidateQueries({ queryKey: testKeys.trend(testId) });
      return qc.invalidateQueries({ queryKey: testKeys.runs(testId) });
    },
  });
}

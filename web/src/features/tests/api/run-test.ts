import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

/** runTest starts a run of a stored test from the dashboard. */
export async function runTest(testId: string) {
  return unwrap(await api.POST('/runs', { body: { test: testId, source: 'ui' } }));
}

export function useRunTest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: runTest,
    onSuccess: (run, testId) => {
      qc.setQueryData(['runs', run.id], run);
      void qc.invalidateQueries({ queryKey: ['runs', 'list'] });
      void qc.invalidateQueries({ queryKey: ['tests', testId, 'trend'] });
      return qc.invalidateQueries({ queryKey: ['tests', testId, 'runs'] });
    },
  });
}

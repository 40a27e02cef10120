import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { testKeys } from '@/lib/query-keys';

export async function deleteTest(testId: string) {
  unwrap(await api.DELETE('/tests/{test}', { params: { path: { test: testId } } }));
}

export function useDeleteTest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: deleteTest,
    onSuccess: (_, testId) => {
      qc.removeQueries({ queryKey: testKeys.detail(testId), exact: true });
      return qc.invalidateQueries({ queryKey: testKeys.lists() });
    },
  });
}

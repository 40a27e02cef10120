import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

export async function deleteTest(testId: string) {
  unwrap(await api.DELETE('/tests/{test}', { params: { path: { test: testId } } }));
}

export function useDeleteTest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: deleteTest,
    onSuccess: (_, testId) => {
      qc.removeQueries({ queryKey: ['tests', testId], exact: true });
      return qc.invalidateQueries({ queryKey: ['tests', 'list'] });
    },
  });
}

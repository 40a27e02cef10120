import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { testKeys } from '@/lib/query-keys';

export async function createTest(body: Schemas['TestCreate']) {
  return unwrap(await api.POST('/tests', { body }));
}

export function useCreateTest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createTest,
    onSuccess: (t) => {
      qc.setQueryData(testKeys.detail(t.id), t);
      return qc.invalidateQueries({ queryKey: testKeys.lists() });
    },
  });
}

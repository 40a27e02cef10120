import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { testKeys } from '@/lib/query-keys';

export async function replaceTest({ testId, body }: { testId: string; body: Schemas['TestReplace'] }) {
  return unwrap(await api.PUT('/tests/{test}', { params: { path: { test: testId } }, body }));
}

export function useReplaceTest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: replaceTest,
    onSuccess: (t) => {
      qc.setQueryData(testKeys.detail(t.id), t);
      return qc.invalidateQueries({ queryKey: testKeys.lists() });
    },
  });
}

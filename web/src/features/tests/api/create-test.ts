import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createTest } from '@/lib/api/create-test';
import { testKeys } from '@/lib/query-keys';

/** useCreateTest stores a test, caches it for its page and refreshes every list of tests. */
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

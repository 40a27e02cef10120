import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createTest } from '@/lib/api/create-test';
import { testKeys } from '@/lib/query-keys';

/** useCreateTest saves the New run form as a stored test and refreshes every list of tests. */
export function useCreateTest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createTest,
    onSuccess: () => qc.invalidateQueries({ queryKey: testKeys.lists() }),
  });
}

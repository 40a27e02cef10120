import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createRun } from '@/lib/api/create-run';
import { runKeys } from '@/lib/query-keys';

/** useCreateRun starts the New run form's run and refreshes every list of runs. */
export function useCreateRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createRun,
    onSuccess: () => qc.invalidateQueries({ queryKey: runKeys.lists() }),
  });
}

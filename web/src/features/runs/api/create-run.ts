import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';

/**
 * createRun starts a run. The Idempotency-Key makes a repeated submit of the
 * same body answer with the run the first one made instead of a second run.
 */
export async function createRun({ body, idempotencyKey }: { body: Schemas['RunCreate']; idempotencyKey: string }) {
  return unwrap(await api.POST('/runs', { body, params: { header: { 'Idempotency-Key': idempotencyKey } } }));
}

export function useCreateRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createRun,
    onSuccess: () => qc.invalidateQueries({ queryKey: runKeys.lists() }),
  });
}

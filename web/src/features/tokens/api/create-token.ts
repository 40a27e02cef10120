import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { tokensKey } from './list-tokens';

/** createToken mints a project token; its secret is in this answer only. */
export async function createToken({ slug, ...body }: { slug: string } & Omit<Schemas['TokenCreate'], 'project'>) {
  return unwrap(await api.POST('/tokens', { body: { ...body, project: slug } }));
}

export function useCreateToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createToken,
    onSettled: (_t, _e, { slug }) => qc.invalidateQueries({ queryKey: tokensKey(slug) }),
  });
}

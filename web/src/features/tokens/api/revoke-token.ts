import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { tokensKey } from './list-tokens';

/** revokeToken ends a token at once. */
export async function revokeToken({ id }: { slug: string; id: string }) {
  unwrap(await api.DELETE('/tokens/{token}', { params: { path: { token: id } } }));
}

export function useRevokeToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: revokeToken,
    onSettled: (_r, _e, { slug }) => qc.invalidateQueries({ queryKey: tokensKey(slug) }),
  });
}

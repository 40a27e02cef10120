import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

/** logoutAll ends every session of the signed-in user, on every device; API tokens keep working. */
export async function logoutAll() {
  unwrap(await api.POST('/auth/logout-all'));
}

export function useLogoutAll() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: logoutAll, onSettled: () => qc.clear() });
}

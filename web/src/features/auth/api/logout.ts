import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

export async function logout() {
  unwrap(await api.POST('/auth/logout'));
}

export function useLogout() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: logout, onSettled: () => qc.clear() });
}

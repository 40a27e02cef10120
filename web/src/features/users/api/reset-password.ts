import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { userKeys } from './list-users';

/**
 * resetPassword gives a user a new random password, in this answer only, and
 * ends every session of theirs (an org admin's session only).
 */
export async function resetPassword({ id }: { id: string }) {
  return unwrap(await api.POST('/users/{user}/password', { params: { path: { user: id } } }));
}

export function useResetPassword() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: resetPassword,
    onSettled: () => qc.invalidateQueries({ queryKey: userKeys.all }),
  });
}

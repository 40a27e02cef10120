import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { userKeys } from './list-users';

/**
 * updateUser disables or enables a user, or grants or takes the org admin
 * role; the API answers 409 when no enabled org admin would be left.
 */
export async function updateUser({ id, ...body }: { id: string } & Schemas['UserUpdate']) {
  return unwrap(await api.PATCH('/users/{user}', { params: { path: { user: id } }, body }));
}

export function useUpdateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: updateUser,
    onSettled: () => qc.invalidateQueries({ queryKey: userKeys.all }),
  });
}

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { userKeys } from './list-users';

/** createUser adds a user to the organisation; a generated password is in this answer only. */
export async function createUser(body: Schemas['UserCreate']) {
  return unwrap(await api.POST('/users', { body }));
}

export function useCreateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createUser,
    onSettled: () => qc.invalidateQueries({ queryKey: userKeys.all }),
  });
}

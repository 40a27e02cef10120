import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { Role } from '@/lib/roles';
import { membersKey } from './list-members';

/** putMember adds a user of the organisation (by email or id) to the project, or changes their role. */
export async function putMember({ slug, user, role }: { slug: string; user: string; role: Role }) {
  return unwrap(await api.PUT('/projects/{project}/members/{user}', { params: { path: { project: slug, user } }, body: { role } }));
}

export function usePutMember() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: putMember,
    onSettled: (_m, _e, { slug }) => qc.invalidateQueries({ queryKey: membersKey(slug) }),
  });
}

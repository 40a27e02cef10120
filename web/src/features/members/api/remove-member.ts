import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { membersKey } from './list-members';

/** removeMember takes a user (by email or id) out of the project. */
export async function removeMember({ slug, user }: { slug: string; user: string }) {
  unwrap(await api.DELETE('/projects/{project}/members/{user}', { params: { path: { project: slug, user } } }));
}

export function useRemoveMember() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: removeMember,
    onSettled: (_r, _e, { slug }) => qc.invalidateQueries({ queryKey: membersKey(slug) }),
  });
}

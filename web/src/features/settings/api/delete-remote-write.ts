import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { projectKeys } from '@/lib/query-keys';

export async function deleteRemoteWrite(slug: string) {
  unwrap(await api.DELETE('/projects/{project}/remote-write', { params: { path: { project: slug } } }));
}

/** useDeleteRemoteWrite stops sending the project's runs to its endpoint (project admins). */
export function useDeleteRemoteWrite() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: deleteRemoteWrite,
    onSuccess: (_, slug) => qc.setQueryData(projectKeys.remoteWrite(slug), null),
  });
}

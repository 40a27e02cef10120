import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { projectKeys } from '@/lib/query-keys';

export async function putRemoteWrite({ slug, body }: { slug: string; body: Schemas['RemoteWritePut'] }) {
  return unwrap(await api.PUT('/projects/{project}/remote-write', { params: { path: { project: slug } }, body }));
}

/** usePutRemoteWrite replaces the project's whole remote-write configuration (project admins). */
export function usePutRemoteWrite() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: putRemoteWrite,
    onSuccess: (stored, { slug }) => qc.setQueryData(projectKeys.remoteWrite(slug), stored),
  });
}

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { echoProfilesKey, echoServersKey } from './keys';

/**
 * updateEchoProfile changes a profile's name or content (admins); the API
 * pushes a changed content to the echoes it is active on, and answers 422
 * naming the field it refuses, 409 when the name is taken.
 */
export async function updateEchoProfile({ id, body }: { project: string; id: string; body: Schemas['EchoProfileUpdate'] }) {
  return unwrap(await api.PATCH('/echo-profiles/{profile}', { params: { path: { profile: id } }, body }));
}

export function useUpdateEchoProfile() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: updateEchoProfile,
    onSuccess: async (_p, { project }) => {
      await qc.invalidateQueries({ queryKey: echoProfilesKey(project) });
      await qc.invalidateQueries({ queryKey: echoServersKey(project) });
    },
  });
}

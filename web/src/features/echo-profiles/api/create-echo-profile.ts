import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { echoProfilesKey } from './keys';

/** createEchoProfile adds a fault profile to a project (admins); 422 names the field the API refuses. */
export async function createEchoProfile(body: { project: string; name: string; content: string }) {
  return unwrap(await api.POST('/echo-profiles', { body }));
}

export function useCreateEchoProfile() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createEchoProfile,
    onSuccess: (_p, { project }) => qc.invalidateQueries({ queryKey: echoProfilesKey(project) }),
  });
}

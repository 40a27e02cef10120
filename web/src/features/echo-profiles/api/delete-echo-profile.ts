import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { echoProfilesKey, echoServersKey } from './keys';

/** deleteEchoProfile removes a profile (admins); echoes it was active on go back to none. */
export async function deleteEchoProfile({ id }: { project: string; id: string }) {
  unwrap(await api.DELETE('/echo-profiles/{profile}', { params: { path: { profile: id } } }));
}

export function useDeleteEchoProfile() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: deleteEchoProfile,
    onSettled: async (_r, _e, { project }) => {
      await qc.invalidateQueries({ queryKey: echoProfilesKey(project) });
      await qc.invalidateQueries({ queryKey: echoServersKey(project) });
    },
  });
}

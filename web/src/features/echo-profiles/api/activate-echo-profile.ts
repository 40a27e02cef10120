import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { echoServersKey } from './keys';

/**
 * activateEchoProfile makes a profile the active one of one echo, or of every
 * echo of the project when echo is empty (runners); it answers the echoes'
 * names, 409 when none is registered.
 */
export async function activateEchoProfile({ id, echo }: { project: string; id: string; echo: string }) {
  return unwrap(
    await api.POST('/echo-profiles/{profile}/activate', {
      params: { path: { profile: id } },
      body: echo ? { echo } : {},
    }),
  );
}

export function useActivateEchoProfile() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: activateEchoProfile,
    onSettled: (_r, _e, { project }) => qc.invalidateQueries({ queryKey: echoServersKey(project) }),
  });
}

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { projectKeys } from '@/lib/query-keys';

export async function putAgentPools({ slug, pools }: { slug: string; pools: string[] }) {
  return unwrap(await api.PUT('/projects/{project}/agent-pools', { params: { path: { project: slug } }, body: { pools } }));
}

/** usePutAgentPools restricts a project's runs to agent pools (org admins); [] lifts it. */
export function usePutAgentPools() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: putAgentPools,
    onSuccess: (stored, { slug }) => qc.setQueryData(projectKeys.agentPools(slug), stored),
  });
}

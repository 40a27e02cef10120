import { queryOptions, useQuery } from '@tanstack/react-query';
import { getAgentPools } from '@/lib/api/get-agent-pools';
import { projectKeys } from '@/lib/query-keys';

export function agentPoolsQuery(slug: string) {
  return queryOptions({ queryKey: projectKeys.agentPools(slug), queryFn: ({ signal }) => getAgentPools(slug, signal) });
}

/** useAgentPools reads the pools the project's runs are restricted to; any member may. */
export function useAgentPools(slug: string) {
  return useQuery(agentPoolsQuery(slug));
}

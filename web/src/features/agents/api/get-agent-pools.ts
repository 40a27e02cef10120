import { queryOptions, useQuery } from '@tanstack/react-query';
import { getAgentPools } from '@/lib/api/get-agent-pools';
import { projectKeys } from '@/lib/query-keys';

/** useAgentPools reads the pools the project's runs are restricted to, to mark the agents it may use. */
export function useAgentPools(slug: string) {
  return useQuery(queryOptions({ queryKey: projectKeys.agentPools(slug), queryFn: ({ signal }) => getAgentPools(slug, signal) }));
}

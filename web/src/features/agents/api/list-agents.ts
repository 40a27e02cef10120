import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

export async function listAgents() {
  return unwrap(await api.GET('/agents'));
}

/** Agents heartbeat every 2 s; the list refreshes as often. */
export const agentsQuery = queryOptions({ queryKey: ['agents'], queryFn: listAgents, refetchInterval: 2_000 });

export function useAgents() {
  return useQuery(agentsQuery);
}

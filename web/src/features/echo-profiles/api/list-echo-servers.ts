import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { echoServersKey } from './keys';

/** listEchoServers returns the managed echoes registered for a project, with their active profile. */
export async function listEchoServers(project: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/echo-servers', { params: { query: { project } }, signal }));
}

/** The echoes apply a profile within about a second: the list refreshes every 5 s to show it. */
export function echoServersQuery(project: string) {
  return queryOptions({
    queryKey: echoServersKey(project),
    queryFn: ({ signal }) => listEchoServers(project, signal),
    refetchInterval: 5_000,
  });
}

export function useEchoServers(project: string) {
  return useQuery(echoServersQuery(project));
}

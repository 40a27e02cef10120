import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { echoProfilesKey } from './keys';

/** listEchoProfiles returns a project's managed echo fault profiles, newest first. */
export async function listEchoProfiles(project: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/echo-profiles', { params: { query: { project, limit: 100 } }, signal }));
}

export function echoProfilesQuery(project: string) {
  return queryOptions({ queryKey: echoProfilesKey(project), queryFn: ({ signal }) => listEchoProfiles(project, signal) });
}

export function useEchoProfiles(project: string) {
  return useQuery(echoProfilesQuery(project));
}

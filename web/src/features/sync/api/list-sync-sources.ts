import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { syncSourceListKey } from './keys';

/** listSyncSources returns a project's sources, each with its latest sync. */
export async function listSyncSources(project: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/sync-sources', { params: { query: { project: project || undefined, limit: 200 } }, signal }));
}

export function syncSourcesQuery(project: string) {
  return queryOptions({ queryKey: syncSourceListKey(project), queryFn: ({ signal }) => listSyncSources(project, signal) });
}

export function useSyncSources(project: string) {
  return useQuery(syncSourcesQuery(project));
}

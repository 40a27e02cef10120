import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { syncRunsKey } from './keys';

/** How many of a source's latest syncs the detail page lists. */
export const syncRunsLimit = 20;

/** listSyncRuns returns a source's latest syncs, newest first, without their objects. */
export async function listSyncRuns(sourceId: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/sync-sources/{source}/runs', { params: { path: { source: sourceId }, query: { limit: syncRunsLimit } }, signal }));
}

export function syncRunsQuery(sourceId: string) {
  return queryOptions({ queryKey: syncRunsKey(sourceId), queryFn: ({ signal }) => listSyncRuns(sourceId, signal) });
}

export function useSyncRuns(sourceId: string) {
  return useQuery(syncRunsQuery(sourceId));
}

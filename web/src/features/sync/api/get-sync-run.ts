import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { syncRunKey } from './keys';

/** How often a running sync is read again. */
export const syncPollMs = 1_000;

/** getSyncRun returns one sync with the outcome of each object it saw. */
export async function getSyncRun(id: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/sync-runs/{sync_run}', { params: { path: { sync_run: id } }, signal }));
}

/** A sync that is still running is read every second until it ends; after that it never changes. */
export function syncRunQuery(id: string) {
  return queryOptions({
    queryKey: syncRunKey(id),
    queryFn: ({ signal }) => getSyncRun(id, signal),
    refetchInterval: (q) => (q.state.data?.status === 'running' ? syncPollMs : false),
  });
}

/** useSyncRun follows a sync; disabled while id is '' or enabled is false. */
export function useSyncRun(id: string, enabled = true) {
  return useQuery({ ...syncRunQuery(id), enabled: enabled && id !== '' });
}

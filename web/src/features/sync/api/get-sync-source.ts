import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { syncSourceKey } from './keys';

export async function getSyncSource(id: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/sync-sources/{source}', { params: { path: { source: id } }, signal }));
}

export function syncSourceQuery(id: string) {
  return queryOptions({ queryKey: syncSourceKey(id), queryFn: ({ signal }) => getSyncSource(id, signal) });
}

export function useSyncSource(id: string) {
  return useQuery(syncSourceQuery(id));
}

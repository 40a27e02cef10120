import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { syncSourcesKey } from './keys';

/** What the dashboard sets on a new source; page and object limits keep the API's defaults. */
export type NewSyncSource = Pick<Schemas['SyncSourceCreate'], 'project' | 'name' | 'url' | 'interval_minutes'>;

export async function createSyncSource(body: NewSyncSource) {
  // The generated type marks max_pages and max_objects required because they
  // have defaults; leaving them out lets the API apply its own.
  return unwrap(await api.POST('/sync-sources', { body: body as Schemas['SyncSourceCreate'] }));
}

export function useCreateSyncSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createSyncSource,
    onSuccess: () => qc.invalidateQueries({ queryKey: syncSourcesKey }),
  });
}

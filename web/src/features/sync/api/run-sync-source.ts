import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { syncRunKey, syncRunsKey, syncSourceKey, syncSourcesKey } from './keys';

type SyncSource = Schemas['SyncSource'];

/** runSyncSource starts a sync now; the API answers 202 with it running, or 409 while one runs. */
export async function runSyncSource(sourceId: string) {
  return unwrap(await api.POST('/sync-sources/{source}/run', { params: { path: { source: sourceId } } }));
}

/**
 * useRunSyncSource starts a sync and makes it the source's last sync in every
 * cached view, so the Sync now button disables and the poll starts at once.
 */
export function useRunSyncSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: runSyncSource,
    onSuccess: (run, sourceId) => {
      qc.setQueryData(syncRunKey(run.id), run);
      const withRun = (s: SyncSource): SyncSource => (s.id === sourceId ? { ...s, last_run: run } : s);
      qc.setQueriesData<Schemas['SyncSourcePage']>({ queryKey: [...syncSourcesKey, 'list'] }, (page) =>
        page ? { ...page, items: page.items.map(withRun) } : page,
      );
      qc.setQueryData<SyncSource>(syncSourceKey(sourceId), (s) => (s ? withRun(s) : s));
      return qc.invalidateQueries({ queryKey: syncRunsKey(sourceId) });
    },
  });
}

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { syncSourceKey, syncSourcesKey } from './keys';

/** deleteSyncSource removes a source and its sync history; the runs it imported stay. */
export async function deleteSyncSource(id: string) {
  unwrap(await api.DELETE('/sync-sources/{source}', { params: { path: { source: id } } }));
}

export function useDeleteSyncSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: deleteSyncSource,
    onSuccess: (_, id) => {
      qc.removeQueries({ queryKey: syncSourceKey(id) });
      return qc.invalidateQueries({ queryKey: syncSourcesKey });
    },
  });
}

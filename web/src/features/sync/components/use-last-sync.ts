import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { Schemas } from '@/lib/api-client';
import { useSyncRun } from '../api/get-sync-run';
import { syncSourceKey, syncSourcesKey } from '../api/keys';

/**
 * useLastSync is a source's latest sync, followed every second while it runs.
 * When it ends, the source lists and its sync history are read again: the
 * next due time and the history moved with it.
 */
export function useLastSync(source: Schemas['SyncSource']): Schemas['SyncRun'] | undefined {
  const qc = useQueryClient();
  const last = source.last_run;
  const running = last?.status === 'running';
  const live = useSyncRun(last?.id ?? '', running);
  const current = live.data && live.data.id === last?.id ? live.data : last;
  const ended = running && current !== undefined && current.status !== 'running';
  useEffect(() => {
    if (!ended) return;
    // The source, its history (under the source's key) and the lists.
    void qc.invalidateQueries({ queryKey: syncSourceKey(source.id) });
    void qc.invalidateQueries({ queryKey: [...syncSourcesKey, 'list'] });
  }, [ended, qc, source.id]);
  return current;
}

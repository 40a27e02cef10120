import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, unwrap } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { isTerminal, type RunStatus } from '@/lib/run-status';

/** livePollMs is how often the shards of a run that has not ended are read again. */
const livePollMs = 2_000;

export async function listRunShards(runId: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/runs/{run}/shards', { params: { path: { run: runId } }, signal })).items;
}

/** The run's shards in shard order; poll while the run may still change them. */
export const runShardsQuery = (runId: string, poll: boolean) =>
  queryOptions({
    queryKey: runKeys.shards(runId),
    queryFn: ({ signal }) => listRunShards(runId, signal),
    refetchInterval: poll ? livePollMs : false,
  });

/**
 * useRunShards reads a run's shards, every 2 s while the run (status, from
 * the run query the live stream keeps current) has not ended, and once more
 * when it ends, so the last statuses and totals show.
 */
export function useRunShards(runId: string, status: RunStatus | undefined) {
  const qc = useQueryClient();
  const live = status !== undefined && !isTerminal(status);
  // Latched: only a run seen live needs the read at its end.
  const [followed, setFollowed] = useState(false);
  if (live && !followed) setFollowed(true);
  const ended = isTerminal(status);
  useEffect(() => {
    if (followed && ended) void qc.invalidateQueries({ queryKey: runKeys.shards(runId), exact: true });
  }, [followed, ended, runId, qc]);
  return useQuery(runShardsQuery(runId, live));
}

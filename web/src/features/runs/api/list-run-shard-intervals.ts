import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { mergeShardIntervals, type ShardInterval } from '../utils/agent-series';

/** pageSize is the API's largest page of seconds (or windows). */
const pageSize = 1000;

/** listRunShardIntervals reads one page of a run's per-shard seconds, in windows of step seconds. */
export async function listRunShardIntervals(runId: string, from: number, signal?: AbortSignal, step = 1) {
  return unwrap(
    await api.GET('/runs/{run}/shards/intervals', {
      params: { path: { run: runId }, query: { from, limit: pageSize, ...(step > 1 ? { step } : {}) } },
      signal,
    }),
  );
}

/** listAllRunShardIntervals pages through a run's per-shard seconds (windows of step seconds). */
export async function listAllRunShardIntervals(runId: string, signal?: AbortSignal, step = 1): Promise<ShardInterval[]> {
  const out: ShardInterval[] = [];
  let from: number | undefined = 0;
  while (from !== undefined) {
    const res = await listRunShardIntervals(runId, from, signal, step);
    out.push(...res.items);
    // A next_from that does not move on would loop forever; stop there.
    from = res.next_from !== undefined && res.next_from > from ? res.next_from : undefined;
  }
  return out;
}

/**
 * The run's per-shard seconds, sorted by second then shard. The live stream's
 * shards events merge into the step-1 key (run-events.ts); the fetch merges
 * with what they put there meanwhile. An ended run's windows (step above 1)
 * never change, and are kept under a key of their own.
 */
export const runShardIntervalsQuery = (runId: string, step = 1) =>
  queryOptions({
    queryKey: runKeys.shardIntervals(runId, step),
    queryFn: async ({ client, signal }) => {
      const fetched = await listAllRunShardIntervals(runId, signal, step);
      if (step > 1) return fetched;
      return mergeShardIntervals(client.getQueryData<ShardInterval[]>(runKeys.shardIntervals(runId)) ?? [], fetched);
    },
    staleTime: step > 1 ? Infinity : undefined,
  });

/** useRunShardIntervals reads the per-shard seconds (windows of step seconds) when enabled (the per-agent view is on, or the run is live). */
export function useRunShardIntervals(runId: string, enabled: boolean, step = 1) {
  return useQuery({ ...runShardIntervalsQuery(runId, step), enabled });
}

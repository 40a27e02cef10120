import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { mergeShardIntervals, type ShardInterval } from '../utils/agent-series';

/** pageSize is the API's largest page of seconds. */
const pageSize = 1000;

/** listRunShardIntervals reads one page of a run's per-shard seconds. */
export async function listRunShardIntervals(runId: string, from: number, signal?: AbortSignal) {
  return unwrap(
    await api.GET('/runs/{run}/shards/intervals', { params: { path: { run: runId }, query: { from, limit: pageSize } }, signal }),
  );
}

/** listAllRunShardIntervals pages through a run's per-shard seconds. */
export async function listAllRunShardIntervals(runId: string, signal?: AbortSignal): Promise<ShardInterval[]> {
  const out: ShardInterval[] = [];
  let from: number | undefined = 0;
  while (from !== undefined) {
    const res = await listRunShardIntervals(runId, from, signal);
    out.push(...res.items);
    // A next_from that does not move on would loop forever; stop there.
    from = res.next_from !== undefined && res.next_from > from ? res.next_from : undefined;
  }
  return out;
}

/**
 * The run's per-shard seconds, sorted by second then shard. The live stream's
 * shards events merge into the same key (run-events.ts); the fetch merges with
 * what they put there meanwhile.
 */
export const runShardIntervalsQuery = (runId: string) =>
  queryOptions({
    queryKey: runKeys.shardIntervals(runId),
    queryFn: async ({ client, signal }) => {
      const fetched = await listAllRunShardIntervals(runId, signal);
      return mergeShardIntervals(client.getQueryData<ShardInterval[]>(runKeys.shardIntervals(runId)) ?? [], fetched);
    },
  });

/** useRunShardIntervals reads the per-shard seconds when enabled (the per-agent view is on, or the run is live). */
export function useRunShardIntervals(runId: string, enabled: boolean) {
  return useQuery({ ...runShardIntervalsQuery(runId), enabled });
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { isTerminal } from '@/lib/run-status';
import { mergeShardIntervals, type ShardInterval } from '../utils/agent-series';
import { maxChartPoints } from '../utils/downsample';

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

/**
 * shardStep is the seconds per row the per-agent charts read: 1 while the
 * run is live (the stream adds each second), else as many as keep an ended
 * run to about maxChartPoints rows a shard, the most a chart draws: an hour
 * over 20 agents is 12,000 rows in windows of 6 s, not 72,000. An ended
 * run's length is the longer of its start to end and its count over its
 * rate (the seconds its requests span, also for a run whose data came
 * faster than it was measured, as when it is imported or seeded).
 */
export function shardStep(run: Pick<Schemas['Run'], 'status' | 'started_at' | 'ended_at' | 'summary'>): number {
  if (!isTerminal(run.status)) return 1;
  const wall = run.started_at && run.ended_at ? (Date.parse(run.ended_at) - Date.parse(run.started_at)) / 1000 : 0;
  const { count = 0, qps = 0 } = run.summary ?? {};
  const measured = qps > 0 ? count / qps : 0;
  const seconds = Math.max(Number.isFinite(wall) ? wall : 0, measured);
  return Math.max(1, Math.ceil(seconds / maxChartPoints));
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

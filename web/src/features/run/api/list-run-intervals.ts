import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { mergeIntervals, type Interval } from '../utils/intervals';

export const runIntervalsKey = (runId: string) => ['runs', runId, 'intervals'] as const;

/** pageSize is the API's largest page of seconds. */
const pageSize = 1000;

export async function listRunIntervals(runId: string, from: number, signal?: AbortSignal) {
  return unwrap(
    await api.GET('/runs/{run}/intervals', { params: { path: { run: runId }, query: { from, limit: pageSize } }, signal }),
  );
}

/** listAllRunIntervals pages through every stored second of a run. */
export async function listAllRunIntervals(runId: string, signal?: AbortSignal): Promise<Interval[]> {
  const out: Interval[] = [];
  let from: number | undefined = 0;
  while (from !== undefined) {
    const page = await listRunIntervals(runId, from, signal);
    out.push(...page.items);
    // A next_from that does not move on would loop forever; stop there.
    from = page.next_from !== undefined && page.next_from > from ? page.next_from : undefined;
  }
  return out;
}

/**
 * The run's seconds, sorted. The live stream merges into the same data
 * (run-events.ts); the fetch merges with whatever the stream put there
 * meanwhile, so neither overwrites newer figures of the other.
 */
export const runIntervalsQuery = (runId: string, poll = false) =>
  queryOptions({
    queryKey: runIntervalsKey(runId),
    queryFn: async ({ client, signal }) => {
      const fetched = await listAllRunIntervals(runId, signal);
      return mergeIntervals(client.getQueryData<Interval[]>(runIntervalsKey(runId)) ?? [], fetched);
    },
    refetchInterval: poll ? 5_000 : false,
  });

/**
 * useRunIntervals reads the seconds; poll refetches them when no live stream
 * can. Imported runs have none: they pass enabled false.
 */
export function useRunIntervals(runId: string, poll = false, enabled = true) {
  return useQuery({ ...runIntervalsQuery(runId, poll), enabled });
}

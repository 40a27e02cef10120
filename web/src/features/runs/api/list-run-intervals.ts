import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { mergeIntervals, type Interval } from '../utils/intervals';

/** pageSize is the API's largest page of seconds: an hour-long run is one request. */
const pageSize = 3600;

export async function listRunIntervals(runId: string, from: number, signal?: AbortSignal) {
  return unwrap(
    await api.GET('/runs/{run}/intervals', { params: { path: { run: runId }, query: { from, limit: pageSize } }, signal }),
  );
}

/** How a read of a run's seconds stops. */
export interface IntervalsReadOptions {
  signal?: AbortSignal;
  /** maxPages stops after this many pages; without it every stored second is read. */
  maxPages?: number;
}

/** listAllRunIntervals pages through a run's stored seconds, up to maxPages pages when given. */
export async function listAllRunIntervals(runId: string, { signal, maxPages = Infinity }: IntervalsReadOptions = {}): Promise<Interval[]> {
  const out: Interval[] = [];
  let from: number | undefined = 0;
  for (let page = 0; from !== undefined && page < maxPages; page++) {
    const res = await listRunIntervals(runId, from, signal);
    out.push(...res.items);
    // A next_from that does not move on would loop forever; stop there.
    from = res.next_from !== undefined && res.next_from > from ? res.next_from : undefined;
  }
  return out;
}

/** How the seconds query reads: poll refetches every 5 s; maxPages caps the read (and keys it apart). */
export interface IntervalsQueryOptions {
  poll?: boolean;
  maxPages?: number;
}

/**
 * The run's seconds, sorted. The live stream merges into the run page's
 * series (run-events.ts); the fetch merges with whatever the stream put there
 * meanwhile, so neither overwrites newer figures of the other. The compare
 * page's overlay reads at most maxPages pages (an hour of seconds each)
 * under a key of its own.
 */
export const runIntervalsQuery = (runId: string, { poll = false, maxPages }: IntervalsQueryOptions = {}) =>
  queryOptions({
    queryKey: runKeys.intervals(runId, maxPages),
    queryFn: async ({ client, signal }) => {
      const fetched = await listAllRunIntervals(runId, { signal, maxPages });
      return mergeIntervals(client.getQueryData<Interval[]>(runKeys.intervals(runId, maxPages)) ?? [], fetched);
    },
    refetchInterval: poll ? 5_000 : false,
  });

/**
 * useRunIntervals reads the seconds; poll refetches them when no live stream
 * can. Imported runs have none: they pass enabled false.
 */
export function useRunIntervals(runId: string, poll = false, enabled = true) {
  return useQuery({ ...runIntervalsQuery(runId, { poll }), enabled });
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { mergeIntervals, type Interval } from '../utils/intervals';

/** pageSize is the API's largest page of seconds: an hour-long run is one request. */
const pageSize = 3600;

/** listRunIntervals reads one page of a run's seconds, or of its windows of step seconds. */
export async function listRunIntervals(runId: string, from: number, signal?: AbortSignal, step = 1) {
  return unwrap(
    await api.GET('/runs/{run}/intervals', {
      params: { path: { run: runId }, query: { from, limit: pageSize, ...(step > 1 ? { step } : {}) } },
      signal,
    }),
  );
}

/** How a read of a run's seconds stops. */
export interface IntervalsReadOptions {
  signal?: AbortSignal;
  /** maxPages stops after this many pages; without it every stored second is read. */
  maxPages?: number;
  /** step above 1 reads windows of that many seconds (seriesStep) instead of every second. */
  step?: number;
}

/** listAllRunIntervals pages through a run's stored seconds, up to maxPages pages when given. */
export async function listAllRunIntervals(runId: string, { signal, maxPages = Infinity, step = 1 }: IntervalsReadOptions = {}): Promise<Interval[]> {
  const out: Interval[] = [];
  let from: number | undefined = 0;
  for (let page = 0; from !== undefined && page < maxPages; page++) {
    const res = await listRunIntervals(runId, from, signal, step);
    out.push(...res.items);
    // A next_from that does not move on would loop forever; stop there.
    from = res.next_from !== undefined && res.next_from > from ? res.next_from : undefined;
  }
  return out;
}

/** How the seconds query reads: poll refetches every 5 s; maxPages caps the read and step widens its rows (each keys it apart). */
export interface IntervalsQueryOptions {
  poll?: boolean;
  maxPages?: number;
  step?: number;
}

/**
 * The run's seconds, sorted. The live stream merges into the run page's
 * series (run-events.ts); the fetch merges with whatever the stream put there
 * meanwhile, so neither overwrites newer figures of the other. The compare
 * page's overlay reads at most maxPages pages (an hour of seconds each), and
 * an ended long run's page its windows of step seconds, each under a key of
 * its own; windows never change.
 */
export const runIntervalsQuery = (runId: string, { poll = false, maxPages, step = 1 }: IntervalsQueryOptions = {}) =>
  queryOptions({
    queryKey: runKeys.intervals(runId, maxPages, step),
    queryFn: async ({ client, signal }) => {
      const fetched = await listAllRunIntervals(runId, { signal, maxPages, step });
      if (step > 1) return fetched;
      return mergeIntervals(client.getQueryData<Interval[]>(runKeys.intervals(runId, maxPages)) ?? [], fetched);
    },
    refetchInterval: poll ? 5_000 : false,
    staleTime: step > 1 ? Infinity : undefined,
  });

/**
 * useRunIntervals reads the seconds (in windows of step seconds once the run
 * has ended, seriesStep); poll refetches them when no live stream can.
 * Imported runs have none: they pass enabled false. When the step changes (a
 * watched run ends) the seconds already read of the same run stay drawn until
 * the windows arrive.
 */
export function useRunIntervals(runId: string, { poll = false, enabled = true, step = 1 }: { poll?: boolean; enabled?: boolean; step?: number } = {}) {
  return useQuery({
    ...runIntervalsQuery(runId, { poll, step }),
    enabled,
    placeholderData: (previous, query) => (query?.queryKey.includes(runId) ? previous : undefined),
  });
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';

const pageSize = 1000;
/** At most this many pages (about 5.5 hours of seconds): enough for an overlay. */
const maxPages = 20;

/** listAllIntervals reads a run's whole per-second series, page after page. */
export async function listAllIntervals(runId: string): Promise<Schemas['Interval'][]> {
  const out: Schemas['Interval'][] = [];
  let from: number | undefined = 0;
  for (let page = 0; from !== undefined && page < maxPages; page++) {
    const res: Schemas['IntervalPage'] = unwrap(
      await api.GET('/runs/{run}/intervals', { params: { path: { run: runId }, query: { from, limit: pageSize } } }),
    );
    out.push(...res.items);
    from = res.next_from;
  }
  return out;
}

export function allIntervalsQuery(runId: string) {
  // Own key under the run's: the run page keeps its live series elsewhere in this tree.
  return queryOptions({ queryKey: ['runs', runId, 'intervals', 'all'], queryFn: () => listAllIntervals(runId) });
}

export function useAllIntervals(runId: string, enabled: boolean) {
  return useQuery({ ...allIntervalsQuery(runId), enabled });
}

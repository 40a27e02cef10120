import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { parseFortioHistogram } from '../utils/histogram';

/** getRunFortioResult fetches a finished run's result as Fortio's JSON, for its histogram. */
export async function getRunFortioResult(runId: string): Promise<Schemas['FortioResult']> {
  const r = await api.GET('/runs/{run}/result', { params: { path: { run: runId }, query: { format: 'fortio' } } });
  return unwrap(r) as Schemas['FortioResult'];
}

const selectHistogram = (r: Schemas['FortioResult']) => parseFortioHistogram(r.DurationHistogram) ?? null;

/**
 * The Fortio view of the result, read for its latency histogram: the run
 * page draws its buckets, the compare page their cumulative percentages. A
 * final result does not change.
 */
export const runFortioHistogramQuery = (runId: string, enabled = true) =>
  queryOptions({
    queryKey: runKeys.fortioResult(runId),
    queryFn: () => getRunFortioResult(runId),
    enabled,
    staleTime: Infinity,
    select: selectHistogram,
  });

export function useRunFortioHistogram(runId: string, enabled: boolean) {
  return useQuery(runFortioHistogramQuery(runId, enabled));
}

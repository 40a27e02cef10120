import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { parseFortioHistogram } from '../utils/histogram';

export const runFortioResultKey = (runId: string) => ['runs', runId, 'result', 'fortio'] as const;

export async function getRunFortioResult(runId: string): Promise<Schemas['FortioResult']> {
  const r = await api.GET('/runs/{run}/result', { params: { path: { run: runId }, query: { format: 'fortio' } } });
  return unwrap(r) as Schemas['FortioResult'];
}

const selectHistogram = (r: Schemas['FortioResult']) => parseFortioHistogram(r.DurationHistogram) ?? null;

/** The Fortio view of the result, read for its latency histogram buckets. */
export const runFortioHistogramQuery = (runId: string, enabled: boolean) =>
  queryOptions({
    queryKey: runFortioResultKey(runId),
    queryFn: () => getRunFortioResult(runId),
    enabled,
    staleTime: Infinity,
    select: selectHistogram,
  });

export function useRunFortioHistogram(runId: string, enabled: boolean) {
  return useQuery(runFortioHistogramQuery(runId, enabled));
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { testKeys } from '@/lib/query-keys';
import { anyActive } from '@/lib/run-status';

/** The trend looks at this many of the test's most recent runs. */
export const trendRunLimit = 200;

/** getTestTrend fetches the figures of a test's latest runs, oldest first. */
export async function getTestTrend(testId: string): Promise<Schemas['TestTrend']> {
  return unwrap(await api.GET('/tests/{test}/trend', { params: { path: { test: testId }, query: { limit: trendRunLimit } } }));
}

export function testTrendQuery(testId: string) {
  return queryOptions({
    queryKey: testKeys.trend(testId),
    queryFn: () => getTestTrend(testId),
    // While one of them runs, its figures are on the way.
    refetchInterval: (q) => (anyActive(q.state.data?.items ?? []) ? 3_000 : false),
  });
}

export function useTestTrend(testId: string) {
  return useQuery(testTrendQuery(testId));
}

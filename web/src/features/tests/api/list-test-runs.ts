import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { testKeys } from '@/lib/query-keys';
import { anyActive } from '@/lib/run-status';

/** How many of the test's most recent runs the page lists. */
export const recentRunLimit = 20;

/** listTestRuns fetches a test's most recent runs, newest first. */
export async function listTestRuns(testId: string): Promise<Schemas['RunPage']> {
  return unwrap(await api.GET('/runs', { params: { query: { test: testId, limit: recentRunLimit } } }));
}

export function testRunsQuery(testId: string) {
  return queryOptions({
    queryKey: testKeys.runs(testId),
    queryFn: () => listTestRuns(testId),
    // While one of them runs, its summary is on the way.
    refetchInterval: (q) => (anyActive(q.state.data?.items ?? []) ? 3_000 : false),
  });
}

export function useTestRuns(testId: string) {
  return useQuery(testRunsQuery(testId));
}

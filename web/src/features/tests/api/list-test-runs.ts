import { queryOptions, useQuery } from '@tanstack/react-query';
import { listRuns } from '@/lib/api/list-runs';
import { testKeys } from '@/lib/query-keys';
import { anyActive } from '@/lib/run-status';

/** How many of the test's most recent runs the page lists. */
export const recentRunLimit = 20;

export function testRunsQuery(testId: string) {
  return queryOptions({
    queryKey: testKeys.runs(testId),
    queryFn: () => listRuns({ test: testId, limit: recentRunLimit }),
    // While one of them runs, its summary is on the way.
    refetchInterval: (q) => (anyActive(q.state.data?.items ?? []) ? 3_000 : false),
  });
}

export function useTestRuns(testId: string) {
  return useQuery(testRunsQuery(testId));
}

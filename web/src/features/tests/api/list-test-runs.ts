import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { anyActive } from '@/lib/run-status';

/** The trend looks at this many of the test's most recent runs. */
export const trendRunLimit = 200;

/** listTestRuns pages through a test's runs, newest first, up to trendRunLimit. */
export async function listTestRuns(testId: string): Promise<{ items: Schemas['Run'][]; more: boolean }> {
  const items: Schemas['Run'][] = [];
  let cursor: string | undefined;
  do {
    const page: Schemas['RunPage'] = unwrap(
      await api.GET('/runs', { params: { query: { test: testId, cursor, limit: Math.min(100, trendRunLimit - items.length) } } }),
    );
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor && items.length < trendRunLimit);
  return { items, more: cursor !== undefined };
}

export function testRunsQuery(testId: string) {
  return queryOptions({
    queryKey: ['tests', testId, 'runs'],
    queryFn: () => listTestRuns(testId),
    // While one of them runs, its summary is on the way.
    refetchInterval: (q) => (anyActive(q.state.data?.items ?? []) ? 3_000 : false),
  });
}

export function useTestRuns(testId: string) {
  return useQuery(testRunsQuery(testId));
}

import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { listTests } from '@/lib/api/list-tests';
import { testKeys } from '@/lib/query-keys';

/** How many tests one page of the tests page holds. */
export const testsPageSize = 50;

export function testsQuery(project: string) {
  return infiniteQueryOptions({
    queryKey: testKeys.list(project),
    queryFn: ({ pageParam }) => listTests({ project, cursor: pageParam, limit: testsPageSize }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
  });
}

/** useTests pages through the project's tests, newest first. */
export function useTests(project: string) {
  return useInfiniteQuery(testsQuery(project));
}

import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { testKeys } from '@/lib/query-keys';

export async function listTests(project: string, cursor?: string) {
  return unwrap(await api.GET('/tests', { params: { query: { project, cursor, limit: 50 } } }));
}

export function testsQuery(project: string) {
  return infiniteQueryOptions({
    queryKey: testKeys.list(project),
    queryFn: ({ pageParam }) => listTests(project, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
  });
}

/** useTests pages through the project's tests, newest first. */
export function useTests(project: string) {
  return useInfiniteQuery(testsQuery(project));
}

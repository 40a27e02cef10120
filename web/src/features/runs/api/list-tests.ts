import { queryOptions, useQuery } from '@tanstack/react-query';
import { listTests } from '@/lib/api/list-tests';
import { testKeys } from '@/lib/query-keys';

/** The menus show a project's newest this-many tests. */
export const testMenuLimit = 200;

export function testsQuery(project: string) {
  return queryOptions({
    queryKey: testKeys.menu(project),
    queryFn: ({ signal }) => listTests({ project: project || undefined, limit: testMenuLimit }, signal),
    staleTime: 30_000,
  });
}

/** useTests lists a project's newest tests for the runs page's filter menu. */
export function useTests(project: string) {
  return useQuery(testsQuery(project));
}

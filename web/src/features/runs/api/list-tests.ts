import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { testKeys } from '@/lib/query-keys';

/** listTests returns the newest 200 tests of a project: enough for a filter menu. */
export async function listTests(project: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/tests', { params: { query: { project: project || undefined, limit: 200 } }, signal }));
}

export function testsQuery(project: string) {
  return queryOptions({ queryKey: testKeys.menu(project), queryFn: ({ signal }) => listTests(project, signal), staleTime: 30_000 });
}

export function useTests(project: string) {
  return useQuery(testsQuery(project));
}

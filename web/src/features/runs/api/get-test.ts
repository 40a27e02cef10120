import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { testKeys } from '@/lib/query-keys';

export async function getTest(id: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/tests/{test}', { params: { path: { test: id } }, signal }));
}

export function testQuery(id: string) {
  return queryOptions({ queryKey: testKeys.detail(id), queryFn: ({ signal }) => getTest(id, signal) });
}

/** useTest loads a stored test; disabled while id is ''. */
export function useTest(id: string) {
  return useQuery({ ...testQuery(id), enabled: id !== '' });
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { testKeys } from '@/lib/query-keys';

export async function getTest(testId: string) {
  return unwrap(await api.GET('/tests/{test}', { params: { path: { test: testId } } }));
}

export function testQuery(testId: string) {
  return queryOptions({ queryKey: testKeys.detail(testId), queryFn: () => getTest(testId) });
}

export function useTest(testId: string) {
  return useQuery(testQuery(testId));
}

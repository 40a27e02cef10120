import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

export async function getTest(testId: string) {
  return unwrap(await api.GET('/tests/{test}', { params: { path: { test: testId } } }));
}

export function testQuery(testId: string) {
  return queryOptions({ queryKey: ['tests', testId], queryFn: () => getTest(testId) });
}

export function useTest(testId: string) {
  return useQuery(testQuery(testId));
}

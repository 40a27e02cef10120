import { queryOptions, useQuery } from '@tanstack/react-query';
import { getTest } from '@/lib/api/get-test';
import { testKeys } from '@/lib/query-keys';

export function testQuery(testId: string) {
  return queryOptions({ queryKey: testKeys.detail(testId), queryFn: () => getTest(testId) });
}

/** useTest loads the stored test the page shows. */
export function useTest(testId: string) {
  return useQuery(testQuery(testId));
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { getTest } from '@/lib/api/get-test';
import { testKeys } from '@/lib/query-keys';

export function testQuery(id: string) {
  return queryOptions({ queryKey: testKeys.detail(id), queryFn: ({ signal }) => getTest(id, signal) });
}

/** useTest loads the stored test the New run form starts from; disabled while id is ''. */
export function useTest(id: string) {
  return useQuery({ ...testQuery(id), enabled: id !== '' });
}

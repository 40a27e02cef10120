import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

export const meKey = ['me'] as const;

export async function getMe() {
  return unwrap(await api.GET('/me'));
}

export const meQuery = queryOptions({ queryKey: meKey, queryFn: getMe, staleTime: 60_000, retry: false });

export function useMe() {
  return useQuery(meQuery);
}

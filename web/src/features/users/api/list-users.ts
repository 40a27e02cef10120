import { infiniteQueryOptions, keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

/** userKeys: every list of users sits under all, so each change refreshes them all. */
export const userKeys = {
  all: ['users'] as const,
  list: (q: string) => [...userKeys.all, 'list', q] as const,
};

/** listUsers is one page of the organisation's users whose email or name contains q, newest first. */
export async function listUsers(q: string, cursor?: string) {
  return unwrap(await api.GET('/users', { params: { query: { q: q === '' ? undefined : q, cursor, limit: 50 } } }));
}

export function usersQuery(q: string) {
  return infiniteQueryOptions({
    queryKey: userKeys.list(q),
    queryFn: ({ pageParam }) => listUsers(q, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
    // A new search keeps the list on screen until its answer comes.
    placeholderData: keepPreviousData,
  });
}

/** useUsers pages through the organisation's users (org admins only). */
export function useUsers(q: string) {
  return useInfiniteQuery(usersQuery(q));
}

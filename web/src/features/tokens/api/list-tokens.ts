import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

export const tokensKey = (slug: string) => ['projects', slug, 'tokens'] as const;

/** listTokens is one page of the project's API tokens, newest first; revoked ones included. */
export async function listTokens(slug: string, cursor?: string) {
  return unwrap(await api.GET('/tokens', { params: { query: { project: slug, cursor, limit: 50 } } }));
}

export function tokensQuery(slug: string) {
  return infiniteQueryOptions({
    queryKey: tokensKey(slug),
    queryFn: ({ pageParam }) => listTokens(slug, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
  });
}

/** useTokens pages through the project's API tokens (project admins only). */
export function useTokens(slug: string) {
  return useInfiniteQuery(tokensQuery(slug));
}

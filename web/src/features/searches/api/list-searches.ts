import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { searchListKey } from './keys';

/** listSearches returns a project's capacity searches, newest first, without their steps. */
export async function listSearches(project: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/searches', { params: { query: { project: project || undefined, limit: 100 } }, signal }));
}

/** While a search runs, the list refreshes every 2 s. */
export function searchesQuery(project: string) {
  return queryOptions({
    queryKey: searchListKey(project),
    queryFn: ({ signal }) => listSearches(project, signal),
    refetchInterval: (q) => (q.state.data?.items.some((s) => s.status === 'running') ? 2_000 : false),
  });
}

export function useSearches(project: string) {
  return useQuery(searchesQuery(project));
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { searchKey } from './keys';

export async function getSearch(id: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/searches/{search}', { params: { path: { search: id } }, signal }));
}

/** A running search is polled every second, so its step chart is live. */
export function searchQuery(id: string) {
  return queryOptions({
    queryKey: searchKey(id),
    queryFn: ({ signal }) => getSearch(id, signal),
    refetchInterval: (q) => (q.state.data?.status === 'running' ? 1_000 : false),
  });
}

export function useSearch(id: string) {
  return useQuery(searchQuery(id));
}

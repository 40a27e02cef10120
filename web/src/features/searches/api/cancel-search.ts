import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { searchKey, searchesKey } from './keys';

/** cancelSearch ends a running search and stops its current run (runners). */
export async function cancelSearch(id: string) {
  return unwrap(await api.POST('/searches/{search}/cancel', { params: { path: { search: id } } }));
}

export function useCancelSearch() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: cancelSearch,
    onSuccess: (s) => {
      qc.setQueryData(searchKey(s.id), s);
      return qc.invalidateQueries({ queryKey: [...searchesKey, 'list'] });
    },
  });
}

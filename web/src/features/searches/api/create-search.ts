import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { searchKey, searchesKey } from './keys';

/** createSearch starts a capacity search (runners). */
export async function createSearch(body: Schemas['SearchCreate']) {
  return unwrap(await api.POST('/searches', { body }));
}

export function useCreateSearch() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createSearch,
    onSuccess: (s) => {
      qc.setQueryData(searchKey(s.id), s);
      return qc.invalidateQueries({ queryKey: [...searchesKey, 'list'] });
    },
  });
}

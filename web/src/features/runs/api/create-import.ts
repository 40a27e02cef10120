import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';

export interface ImportInput {
  project: string;
  /** The document's text, sent as it is: the API reads and checks it. */
  text: string;
  /** Where it came from (the file name), kept with the run. */
  origin: string;
}

/**
 * createImport posts a Fortio result document to become a completed run.
 * The file's bytes go unchanged (no parse and re-serialize here), so the API
 * names the field at fault in a document it cannot read.
 */
export async function createImport({ project, text, origin }: ImportInput) {
  return unwrap(
    await api.POST('/imports', {
      params: { query: { project: project || undefined, origin } },
      body: {} as Schemas['FortioDocument'],
      bodySerializer: () => text,
    }),
  );
}

export function useCreateImport() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createImport,
    onSuccess: () => qc.invalidateQueries({ queryKey: runKeys.lists() }),
  });
}

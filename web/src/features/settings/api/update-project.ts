import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';

export async function updateProject({ slug, body }: { slug: string; body: Schemas['ProjectUpdate'] }) {
  return unwrap(await api.PATCH('/projects/{project}', { params: { path: { project: slug } }, body }));
}

export function useUpdateProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: updateProject,
    onSuccess: (p, { slug }) => {
      qc.setQueryData(['projects', slug], p);
      return qc.invalidateQueries({ queryKey: ['projects'] });
    },
  });
}

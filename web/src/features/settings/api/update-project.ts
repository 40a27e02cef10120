import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { projectKeys } from '@/lib/query-keys';

export async function updateProject({ slug, body }: { slug: string; body: Schemas['ProjectUpdate'] }) {
  return unwrap(await api.PATCH('/projects/{project}', { params: { path: { project: slug } }, body }));
}

export function useUpdateProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: updateProject,
    onSuccess: (p, { slug }) => {
      qc.setQueryData(projectKeys.detail(slug), p);
      return qc.invalidateQueries({ queryKey: projectKeys.all });
    },
  });
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

export async function getProject(slug: string) {
  return unwrap(await api.GET('/projects/{project}', { params: { path: { project: slug } } }));
}

export function projectQuery(slug: string) {
  return queryOptions({ queryKey: ['projects', slug], queryFn: () => getProject(slug) });
}

export function useProjectSettings(slug: string) {
  return useQuery(projectQuery(slug));
}

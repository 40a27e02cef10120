import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { projectKeys } from '@/lib/query-keys';

export async function getProject(slug: string) {
  return unwrap(await api.GET('/projects/{project}', { params: { path: { project: slug } } }));
}

export function projectQuery(slug: string) {
  return queryOptions({ queryKey: projectKeys.detail(slug), queryFn: () => getProject(slug) });
}

export function useProjectSettings(slug: string) {
  return useQuery(projectQuery(slug));
}

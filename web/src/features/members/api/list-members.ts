import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

export const membersKey = (slug: string) => ['projects', slug, 'members'] as const;

export async function listMembers(slug: string) {
  return unwrap(await api.GET('/projects/{project}/members', { params: { path: { project: slug } } }));
}

export function membersQuery(slug: string) {
  return queryOptions({ queryKey: membersKey(slug), queryFn: () => listMembers(slug) });
}

/** useMembers is every member of the project, by email. */
export function useMembers(slug: string) {
  return useQuery(membersQuery(slug));
}

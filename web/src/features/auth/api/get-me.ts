import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import type { Role } from '@/lib/roles';

export const meKey = ['me'] as const;

export async function getMe() {
  return unwrap(await api.GET('/me'));
}

export const meQuery = queryOptions({ queryKey: meKey, queryFn: getMe, staleTime: 60_000, retry: false });

export function useMe() {
  return useQuery(meQuery);
}

/**
 * roleIn is the caller's role in a project as /me reports it (an org admin is
 * admin everywhere; a project token has the role it was given), or undefined
 * when the project is not among theirs.
 */
export function roleIn(me: Schemas['Me'] | undefined, slug: string): Role | undefined {
  return me?.projects.find((p) => p.project.slug === slug)?.role;
}

/** useProjectRole is the caller's role in the project, from the /me answer the layout loaded. */
export function useProjectRole(slug: string): Role | undefined {
  return roleIn(useMe().data, slug);
}

/** roleInProject is the caller's role in the project with this id (a run's project_id), as roleIn. */
export function roleInProject(me: Schemas['Me'] | undefined, projectId: string): Role | undefined {
  return me?.projects.find((p) => p.project.id === projectId)?.role;
}

/**
 * isOrgAdmin reports whether the caller acts as an organisation admin: an
 * org admin signed in, or on a token not limited to one project (the API
 * treats a project token as its project role only).
 */
export function isOrgAdmin(me: Schemas['Me'] | undefined): boolean {
  return me !== undefined && me.user.is_admin && me.token?.project_id === undefined;
}

/** useOrgAdmin is isOrgAdmin of the /me answer the layout loaded. */
export function useOrgAdmin(): boolean {
  return isOrgAdmin(useMe().data);
}

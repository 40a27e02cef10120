import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

/** oidcLoginPath starts single sign-on: a full-page navigation, not a fetch. */
export const oidcLoginPath = '/api/v1/auth/oidc/login';

export async function getAuthMethods() {
  return unwrap(await api.GET('/auth/methods'));
}

export const authMethodsQuery = queryOptions({ queryKey: ['auth', 'methods'], queryFn: getAuthMethods, staleTime: Infinity });

/** useAuthMethods is how one may sign in here (password; single sign-on when configured). */
export function useAuthMethods() {
  return useQuery(authMethodsQuery);
}

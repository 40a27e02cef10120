import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

/** orgPolicyKey is the organisation's target policy: one per server. */
export const orgPolicyKey = ['org', 'target-policy'] as const;

export async function getOrgTargetPolicy() {
  return unwrap(await api.GET('/org/target-policy'));
}

/**
 * useOrgTargetPolicy reads the organisation's target policy. The API shows
 * it to org admins and project admins only, so others do not ask.
 */
export function useOrgTargetPolicy(enabled: boolean) {
  return useQuery(queryOptions({ queryKey: orgPolicyKey, queryFn: getOrgTargetPolicy, enabled }));
}

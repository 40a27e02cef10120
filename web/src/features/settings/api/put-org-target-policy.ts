import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { orgPolicyKey } from './get-org-target-policy';

export async function putOrgTargetPolicy(list: string[]) {
  return unwrap(await api.PUT('/org/target-policy', { body: { target_allow_list: list } }));
}

/** usePutOrgTargetPolicy replaces the organisation's target policy (org admins). */
export function usePutOrgTargetPolicy() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: putOrgTargetPolicy,
    onSuccess: (stored) => qc.setQueryData(orgPolicyKey, stored),
  });
}

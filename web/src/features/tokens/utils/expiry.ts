/** expiryChoices are the lifetimes offered for a new token, in days; 0 is never. */
export const expiryChoices = [
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 365, label: '1 year' },
  { days: 7, label: '7 days' },
  { days: 0, label: 'Never' },
] as const;

/** expiresAt is the ISO instant a token made at now lasts until, or undefined for never. */
export function expiresAt(days: number, now: number = Date.now()): string | undefined {
  if (!Number.isFinite(days) || days <= 0) return undefined;
  return new Date(now + days * 86_400_000).toISOString();
}

/** tokenState is what a token is now: revoked, expired or active. */
export function tokenState(t: { revoked_at?: string; expires_at?: string }, now: number = Date.now()): 'revoked' | 'expired' | 'active' {
  if (t.revoked_at) return 'revoked';
  if (t.expires_at && new Date(t.expires_at).getTime() <= now) return 'expired';
  return 'active';
}

/** AuditFilter is the audit log form as typed: datetime-local values in the viewer's zone. */
export interface AuditFilter {
  actor: string;
  action: string;
  since: string;
  until: string;
}

export const emptyFilter: AuditFilter = { actor: '', action: '', since: '', until: '' };

/** AuditQuery is the filter part of GET /audit. */
export interface AuditQuery {
  actor?: string;
  action?: string;
  since?: string;
  until?: string;
}

/** localToIso turns a datetime-local value (the viewer's zone) into an ISO instant; undefined when empty or not a time. */
export function localToIso(v: string): string | undefined {
  if (v.trim() === '') return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/**
 * toQuery checks a filter and maps it to the API's query: errors name the
 * field at fault (the API would answer 422 for until before since).
 */
export function toQuery(f: AuditFilter): { query: AuditQuery; errors: Partial<Record<keyof AuditFilter, string>> } {
  const query: AuditQuery = {};
  const errors: Partial<Record<keyof AuditFilter, string>> = {};
  const actor = f.actor.trim();
  const action = f.action.trim();
  if (actor) query.actor = actor;
  if (action) query.action = action;
  const since = localToIso(f.since);
  const until = localToIso(f.until);
  if (f.since.trim() && !since) errors.since = 'Not a date and time';
  if (f.until.trim() && !until) errors.until = 'Not a date and time';
  if (since) query.since = since;
  if (until) query.until = until;
  if (since && until && Date.parse(until) <= Date.parse(since)) errors.until = 'Must be after From';
  return { query, errors };
}

/** describeActor names who acted: the email, with the token's name when a token did it; "system" for neither. */
export function describeActor(a: { email?: string; token_name?: string }): string {
  if (a.email && a.token_name) return `${a.email} (token ${a.token_name})`;
  if (a.token_name) return `token ${a.token_name}`;
  return a.email ?? 'system';
}

import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { AuditQuery } from '../utils/audit-filter';

export const auditKey = (slug: string, q: AuditQuery, cursor: string | undefined, limit: number) =>
  ['projects', slug, 'audit', q, cursor ?? '', limit] as const;

/** listAudit is one page of the project's audit log, newest first. */
export async function listAudit(slug: string, q: AuditQuery, cursor: string | undefined, limit: number) {
  return unwrap(await api.GET('/audit', { params: { query: { project: slug, ...q, cursor, limit } } }));
}

export function auditQuery(slug: string, q: AuditQuery, cursor: string | undefined, limit: number) {
  return queryOptions({
    queryKey: auditKey(slug, q, cursor, limit),
    queryFn: () => listAudit(slug, q, cursor, limit),
    placeholderData: keepPreviousData,
  });
}

/** useAudit is one page of the project's audit log (project admins only). */
export function useAudit(slug: string, q: AuditQuery, cursor: string | undefined, limit: number) {
  return useQuery(auditQuery(slug, q, cursor, limit));
}

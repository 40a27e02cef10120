import { useState } from 'react';
import { ErrorState, Loading } from '@/components/ui/states';
import { formatTime } from '@/lib/format';
import { useProject } from '@/lib/project';
import { can, type Role } from '@/lib/roles';
import { useAudit } from '../api/list-audit';
import { describeActor, type AuditQuery } from '../utils/audit-filter';
import { AuditFilters } from './audit-filters';
import './audit.css';

const pageSizes = [10, 25, 50, 100] as const;

/**
 * AuditPage is the current project's audit log for its admins, newest
 * first: filtered by actor, action and time, read a page at a time. The API
 * pages forward only, so the page keeps the cursors it came through to step
 * back.
 */
export function AuditPage({ role }: { role: Role | undefined }) {
  const slug = useProject();
  const [query, setQuery] = useState<AuditQuery>({});
  const [limit, setLimit] = useState<number>(25);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const admin = can(role, 'admin');
  const audit = useAudit(slug, query, cursor, limit);
  const restart = () => setCursors([undefined]);
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Audit log</h1>
      {!admin ? (
        <p className="muted" role="note" style={{ margin: 0 }}>
          Only admins of this project can read its audit log.
        </p>
      ) : (
        <>
          <AuditFilters onApply={(q) => { setQuery(q); restart(); }} />
          {audit.isPending ? (
            <Loading />
          ) : audit.error ? (
            <ErrorState error={audit.error} retry={() => audit.refetch()} />
          ) : audit.data.items.length === 0 ? (
            <p className="state" style={{ margin: 0 }}>{Object.keys(query).length > 0 ? 'No entries match these filters.' : 'No entries yet.'}</p>
          ) : (
            <div className="table-wrap">
              <table aria-label="Audit log" aria-busy={audit.isFetching || undefined}>
                <thead>
                  <tr>
                    <th>Time</th>
                    <th>Actor</th>
                    <th>Action</th>
                    <th>Target</th>
                    <th>Details</th>
                  </tr>
                </thead>
                <tbody>
                  {audit.data.items.map((e) => (
                    <tr key={e.id}>
                      <td>{formatTime(e.at)}</td>
                      <td>{describeActor(e.actor)}</td>
                      <td className="mono">{e.action}</td>
                      <td className="mono">{e.target_kind} {e.target_id}</td>
                      <td className="mono audit-details">{Object.keys(e.details).length > 0 ? JSON.stringify(e.details) : ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <nav className="actions" aria-label="Audit log pages">
            <button type="button" disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
              Newer
            </button>
            <span className="muted">Page {cursors.length}</span>
            <button type="button" disabled={!audit.data?.next_cursor || audit.isPlaceholderData}
              onClick={() => setCursors([...cursors, audit.data?.next_cursor])}>
              Older
            </button>
            <label className="field audit-size">
              Per page
              <select value={limit} onChange={(e) => { setLimit(Number(e.target.value)); restart(); }}>
                {pageSizes.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
          </nav>
        </>
      )}
    </div>
  );
}

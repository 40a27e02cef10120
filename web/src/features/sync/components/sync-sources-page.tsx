import { useState } from 'react';
import { Link } from 'react-router';
import { Empty, ErrorState, Loading } from '@/components/ui/states';
import type { Schemas } from '@/lib/api-client';
import { formatAgo, formatTime } from '@/lib/format';
import { useProject } from '@/lib/project';
import { can, type Role } from '@/lib/roles';
import { useSyncSources } from '../api/list-sync-sources';
import { intervalText } from '../utils/source-form';
import { DeleteSourceButton } from './delete-source-button';
import { SourceForm } from './source-form';
import { SyncCounts, SyncStatusBadge } from './sync-badges';
import { SyncNowButton } from './sync-now-button';
import { useLastSync } from './use-last-sync';
import './sync.css';

/**
 * SyncSourcesPage lists the project's sync sources with their last sync, and adds new ones.
 * role is the caller's in the project: admins add and delete sources, runners and admins sync them.
 */
export function SyncSourcesPage({ role }: { role: Role | undefined }) {
  const project = useProject();
  const sources = useSyncSources(project);
  const [adding, setAdding] = useState(false);
  const items = sources.data?.items ?? [];
  const now = sources.dataUpdatedAt;

  return (
    <div className="stack">
      <div className="spread">
        <h1 style={{ margin: 0 }}>Sync</h1>
        {!adding && can(role, 'admin') && (
          <button type="button" className="primary" onClick={() => setAdding(true)}>
            Add source
          </button>
        )}
      </div>
      <p className="muted" style={{ margin: 0 }}>
        Fortio results read from an index.tsv or a bucket listing, imported as runs. Each object is imported once; a changed one again.
      </p>
      {adding && can(role, 'admin') && <SourceForm onCreated={() => setAdding(false)} onCancel={() => setAdding(false)} />}
      {sources.isPending ? (
        <Loading label="Loading sources…" />
      ) : sources.error ? (
        <ErrorState error={sources.error} retry={() => sources.refetch()} />
      ) : items.length === 0 ? (
        <Empty>No sync source in this project yet.</Empty>
      ) : (
        <div className="table-wrap">
          <table className="sync-table" data-testid="sync-sources">
            <thead>
              <tr>
                <th>Name</th>
                <th>URL</th>
                <th>Kind</th>
                <th>Interval</th>
                <th>Last sync</th>
                <th>When</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((s) => (
                <SourceRow key={s.id} source={s} now={now} role={role} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function SourceRow({ source: s, now, role }: { source: Schemas['SyncSource']; now: number; role: Role | undefined }) {
  const last = useLastSync(s);
  const when = last?.ended_at ?? last?.started_at;
  return (
    <tr data-source-id={s.id}>
      <td>
        <Link to={`/sync/${s.id}`}>{s.name}</Link>
      </td>
      <td className="mono sync-url">{s.url}</td>
      <td className="mono">{s.kind}</td>
      <td title={s.next_run_at ? `next ${formatTime(s.next_run_at)}` : undefined}>{intervalText(s.interval_minutes)}</td>
      <td>
        {last ? (
          <span className="stack" style={{ gap: 2 }}>
            <span>
              <SyncStatusBadge status={last.status} />
            </span>
            <SyncCounts run={last} />
            {last.error && <span className="field-error">{last.error}</span>}
          </span>
        ) : (
          <span className="muted">never</span>
        )}
      </td>
      <td title={formatTime(when)} style={{ whiteSpace: 'nowrap' }}>
        {when ? formatAgo(when, now) : '–'}
      </td>
      <td className="sync-actions">
        {can(role, 'runner') && <SyncNowButton sourceId={s.id} name={s.name} running={last?.status === 'running'} />}
        {can(role, 'admin') && <DeleteSourceButton sourceId={s.id} name={s.name} />}
      </td>
    </tr>
  );
}

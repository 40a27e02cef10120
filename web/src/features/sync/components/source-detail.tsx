import { Link } from 'react-router';
import { Empty, ErrorState, Loading } from '@/components/ui/states';
import { ApiError, type Schemas } from '@/lib/api-client';
import { formatAgo, formatBytes, formatTime } from '@/lib/format';
import { can, type Role } from '@/lib/roles';
import { useSyncSource } from '../api/get-sync-source';
import { useSyncRun } from '../api/get-sync-run';
import { useSyncRuns } from '../api/list-sync-runs';
import { intervalText } from '../utils/source-form';
import { DeleteSourceButton } from './delete-source-button';
import { OutcomeBadge, SyncCounts, SyncStatusBadge } from './sync-badges';
import { SyncNowButton } from './sync-now-button';
import { useLastSync } from './use-last-sync';
import './sync.css';

type Props = {
  sourceId: string;
  /** The sync whose objects show; the latest when undefined. */
  selected?: string;
  onSelect: (syncRunId: string) => void;
  onDeleted: () => void;
  /** The caller's role in the project: runners and admins sync, admins delete. */
  role: Role | undefined;
};

/** SourceDetail is one sync source: its settings, its latest syncs and the objects of the chosen one. */
export function SourceDetail({ sourceId, selected, onSelect, onDeleted, role }: Props) {
  const source = useSyncSource(sourceId);
  if (source.isPending) return <Loading />;
  if (source.error) {
    if (source.error instanceof ApiError && source.error.status === 404) {
      return (
        <div className="state error" role="alert">
          <strong>No such sync source</strong>
          <div>It was deleted, or it is in a project you cannot see.</div>
          <Link to="/sync">Back to sync sources</Link>
        </div>
      );
    }
    return <ErrorState error={source.error} retry={() => source.refetch()} />;
  }
  return <Source source={source.data} selected={selected} onSelect={onSelect} onDeleted={onDeleted} role={role} />;
}

function Source({ source: s, selected, onSelect, onDeleted, role }: { source: Schemas['SyncSource'] } & Omit<Props, 'sourceId'>) {
  const last = useLastSync(s);
  const runs = useSyncRuns(s.id);
  const items = runs.data?.items ?? [];
  const chosen = selected ?? items[0]?.id ?? last?.id ?? '';
  return (
    <div className="stack">
      <header className="stack" style={{ gap: 8 }}>
        <div className="spread">
          <h1 style={{ margin: 0 }}>{s.name}</h1>
          <div className="sync-actions">
            {can(role, 'runner') && <SyncNowButton sourceId={s.id} name={s.name} running={last?.status === 'running'} />}
            {can(role, 'admin') && <DeleteSourceButton sourceId={s.id} name={s.name} onDeleted={onDeleted} />}
          </div>
        </div>
        <div className="sync-meta">
          <span className="mono">{s.url}</span>
          <span>kind {s.kind}</span>
          <span>{intervalText(s.interval_minutes)}</span>
          {s.next_run_at && <span>next {formatTime(s.next_run_at)}</span>}
          <span>
            at most {s.max_pages} pages, {s.max_objects} objects
          </span>
        </div>
        <Link to="/sync">All sources</Link>
      </header>
      <section className="stack" style={{ gap: 8 }}>
        <h2 style={{ margin: 0 }}>Latest syncs</h2>
        {runs.isPending ? (
          <Loading label="Loading syncs…" />
        ) : runs.error ? (
          <ErrorState error={runs.error} retry={() => runs.refetch()} />
        ) : items.length === 0 ? (
          <Empty>Not synced yet.</Empty>
        ) : (
          <SyncRunsTable runs={items.map((r) => (r.id === last?.id ? { ...r, ...last, objects: undefined } : r))} chosen={chosen} onSelect={onSelect} />
        )}
      </section>
      {chosen && <SyncObjects syncRunId={chosen} />}
    </div>
  );
}

function SyncRunsTable({ runs, chosen, onSelect }: { runs: Schemas['SyncRun'][]; chosen: string; onSelect: (id: string) => void }) {
  return (
    <div className="table-wrap">
      <table className="sync-runs" data-testid="sync-runs">
        <thead>
          <tr>
            <th>Started</th>
            <th>Trigger</th>
            <th>Status</th>
            <th>Objects</th>
            <th className="num">Pages</th>
            <th>
              <span className="sr-only">Objects</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} data-sync-run-id={r.id} className={r.id === chosen ? 'selected' : undefined}>
              <td title={formatTime(r.started_at)} style={{ whiteSpace: 'nowrap' }}>
                {formatTime(r.started_at)}
              </td>
              <td>{r.trigger}</td>
              <td>
                <SyncStatusBadge status={r.status} />
                {r.error && <div className="field-error">{r.error}</div>}
              </td>
              <td>
                <SyncCounts run={r} />
              </td>
              <td className="num">{r.pages}</td>
              <td>
                {r.id === chosen ? (
                  <span className="muted">shown below</span>
                ) : (
                  <button type="button" className="link" onClick={() => onSelect(r.id)}>
                    Show objects
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** SyncObjects lists each object one sync saw, with its outcome; followed every second while the sync runs. */
function SyncObjects({ syncRunId }: { syncRunId: string }) {
  const run = useSyncRun(syncRunId);
  let body;
  if (run.isPending) body = <Loading label="Loading objects…" />;
  else if (run.error) body = <ErrorState error={run.error} retry={() => run.refetch()} />;
  else {
    const objects = run.data.objects ?? [];
    body = (
      <>
        <p className="sync-meta" style={{ margin: 0 }}>
          <SyncStatusBadge status={run.data.status} />
          <span title={formatTime(run.data.started_at)}>started {formatAgo(run.data.started_at, run.dataUpdatedAt)}</span>
          <SyncCounts run={run.data} />
          {run.data.status === 'running' && <span>refreshing every second</span>}
        </p>
        {objects.length === 0 ? (
          <Empty>{run.data.status === 'running' ? 'No object seen yet.' : 'The listing had no objects.'}</Empty>
        ) : (
          <div className="table-wrap">
            <table className="sync-objects" data-testid="sync-objects">
              <thead>
                <tr>
                  <th>URL</th>
                  <th className="num">Size</th>
                  <th>Outcome</th>
                  <th>Reason</th>
                  <th>Run</th>
                </tr>
              </thead>
              <tbody>
                {objects.map((o, i) => (
                  <tr key={`${o.url}#${i}`}>
                    <td className="mono sync-url">{o.url}</td>
                    <td className="num">{o.size !== undefined ? formatBytes(o.size) : '–'}</td>
                    <td>
                      <OutcomeBadge outcome={o.outcome} />
                    </td>
                    <td className={o.outcome === 'failed' ? 'sync-bad' : undefined}>{o.reason ?? ''}</td>
                    <td>
                      {o.run_id ? (
                        <Link to={`/runs/${o.run_id}`} aria-label={`Run imported from ${o.url}`}>
                          View run
                        </Link>
                      ) : (
                        <span className="muted">–</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </>
    );
  }
  return (
    <section className="stack" style={{ gap: 8 }} aria-label="Objects of the sync">
      <h2 style={{ margin: 0 }}>Objects</h2>
      {body}
    </section>
  );
}

import { useState } from 'react';
import { Link } from 'react-router';
import { Empty, ErrorState, Loading } from '@/components/ui/states';
import { formatAgo, formatRate, formatTime } from '@/lib/format';
import { useProject } from '@/lib/project';
import { can, type Role } from '@/lib/roles';
import { useSearches } from '../api/list-searches';
import { SearchStatusBadge } from './search-status-badge';
import { StartSearchForm } from './start-search-form';

/** SearchesPage lists the project's capacity searches with their answer; runners start new ones here. */
export function SearchesPage({ role }: { role: Role | undefined }) {
  const project = useProject();
  const searches = useSearches(project);
  const [starting, setStarting] = useState(false);
  const now = searches.dataUpdatedAt;
  const runner = can(role, 'runner');
  return (
    <div className="stack">
      <div className="spread">
        <h1 style={{ margin: 0 }}>Searches</h1>
        {runner && !starting && (
          <button type="button" className="primary" onClick={() => setStarting(true)}>
            New search
          </button>
        )}
      </div>
      <p className="muted" style={{ margin: 0 }}>
        A capacity search finds the highest qps that meets an objective, one short run per step.
      </p>
      {starting && <StartSearchForm project={project} onClose={() => setStarting(false)} />}
      {searches.isPending ? (
        <Loading label="Loading searches…" />
      ) : searches.error ? (
        <ErrorState error={searches.error} retry={() => searches.refetch()} />
      ) : searches.data.items.length === 0 ? (
        <Empty>No capacity search in this project yet.</Empty>
      ) : (
        <div className="table-wrap">
          <table data-testid="searches">
            <thead>
              <tr>
                <th>Name</th>
                <th>Objective</th>
                <th>Status</th>
                <th className="num">Best qps</th>
                <th>Result</th>
                <th>Started</th>
              </tr>
            </thead>
            <tbody>
              {searches.data.items.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Link to={`/searches/${s.id}`}>{s.name || s.id.slice(0, 8)}</Link>
                  </td>
                  <td className="mono">{s.objective}</td>
                  <td>
                    <SearchStatusBadge status={s.status} />
                  </td>
                  <td className="num">{formatRate(s.best_qps)}</td>
                  <td className="muted">{s.message}</td>
                  <td title={formatTime(s.created_at)}>{formatAgo(s.created_at, now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

import { Link } from 'react-router';
import { Empty, ErrorState, Loading } from '@/components/ui/states';
import { formatAgo, formatRate, formatTime } from '@/lib/format';
import { useProject } from '@/lib/project';
import { useSearches } from '../api/list-searches';
import { SearchStatusBadge } from './search-status-badge';

/** SearchesPage lists the project's capacity searches with their answer. */
export function SearchesPage() {
  const project = useProject();
  const searches = useSearches(project);
  const now = searches.dataUpdatedAt;
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Searches</h1>
      <p className="muted" style={{ margin: 0 }}>
        A capacity search finds the highest qps that meets an objective, one short run per step. Start one with{' '}
        <code>barrage search</code> or <code>POST /api/v1/searches</code>.
      </p>
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

import { Link } from 'react-router';
import { Labels } from '@/components/ui/labels';
import { Empty, ErrorState, Loading } from '@/components/ui/states';
import { formatAgo, formatTime } from '@/lib/format';
import { useProject } from '@/lib/project';
import { useTests } from '../api/list-tests';
import { ScheduleCell } from './test-schedule';
import './tests.css';

/** TestsTable lists the project's stored tests, newest first. */
export function TestsTable() {
  const project = useProject();
  const tests = useTests(project);
  if (tests.isPending) return <Loading />;
  if (tests.error) return <ErrorState error={tests.error} retry={() => tests.refetch()} />;
  const items = tests.data.pages.flatMap((p) => p.items);
  if (items.length === 0) {
    return (
      <Empty>
        No test stored in this project yet. <Link to="/tests?new=1">Create one</Link> to run the same load again and follow its trend.
      </Empty>
    );
  }
  const now = tests.dataUpdatedAt;
  return (
    <div className="stack">
      <div className="table-wrap">
        <table data-testid="tests-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Labels</th>
              <th>Target</th>
              <th>Schedule</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {items.map((t) => (
              <tr key={t.id}>
                <td className="cell-name">
                  <Link to={`/tests/${t.id}`}>{t.name}</Link>
                  {t.description && (
                    <div className="muted" style={{ fontSize: '0.85rem' }}>
                      {t.description}
                    </div>
                  )}
                </td>
                <td>
                  <Labels labels={t.labels} />
                </td>
                <td className="mono cell-target">{t.spec.url}</td>
                <td className="cell-schedule">
                  <ScheduleCell test={t} />
                </td>
                <td title={formatTime(t.updated_at)} style={{ whiteSpace: 'nowrap' }}>
                  {formatAgo(t.updated_at, now)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {tests.hasNextPage && (
        <div>
          <button type="button" onClick={() => tests.fetchNextPage()} disabled={tests.isFetchingNextPage}>
            {tests.isFetchingNextPage ? 'Loading…' : 'Show more'}
          </button>
        </div>
      )}
    </div>
  );
}

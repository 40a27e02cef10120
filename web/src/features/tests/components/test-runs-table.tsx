import { Link } from 'react-router';
import { Empty } from '@/components/ui/states';
import { StatusBadge } from '@/components/ui/status-badge';
import type { Schemas } from '@/lib/api-client';
import { formatAgo, formatCount, formatDuration, formatRate, formatTime } from '@/lib/format';
import { summaryKind } from '@/lib/latency-kind';
import { runName } from '@/lib/run-name';
import { recentRunLimit } from '../api/list-test-runs';

/** How many of the test's runs the table lists. */
const shown = recentRunLimit;

/** TestRunsTable lists a test's most recent runs, newest first, each linking to its page. */
export function TestRunsTable({ runs, now }: { runs: Schemas['Run'][]; now: number }) {
  if (runs.length === 0) return <Empty>This test has not run yet.</Empty>;
  return (
    <div className="table-wrap">
      <table data-testid="test-runs">
        <thead>
          <tr>
            <th>Run</th>
            <th>Status</th>
            <th>Started</th>
            <th className="num">Count</th>
            <th className="num">QPS</th>
            <th className="num">p50</th>
            <th className="num">p99</th>
            <th>Latency</th>
            <th className="num">Errors</th>
          </tr>
        </thead>
        <tbody>
          {runs.slice(0, shown).map((r) => {
            const at = r.started_at ?? r.created_at;
            return (
              <tr key={r.id}>
                <td className="cell-name">
                  <Link to={`/runs/${r.id}`}>{runName(r)}</Link>
                </td>
                <td>
                  <StatusBadge status={r.status} />
                </td>
                <td title={formatTime(at)} style={{ whiteSpace: 'nowrap' }}>
                  {formatAgo(at, now)}
                </td>
                <td className="num">{formatCount(r.summary?.count)}</td>
                <td className="num">{formatRate(r.summary?.qps)}</td>
                <td className="num">{formatDuration(r.summary?.p50_us)}</td>
                <td className="num">{formatDuration(r.summary?.p99_us)}</td>
                <td className="muted">{r.summary ? `${summaryKind(r.spec, r.source === 'import' || r.source === 'sync')} time` : '–'}</td>
                <td className="num">{formatCount(r.summary?.errors)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

import { Link } from 'react-router';
import { ImportedBadge } from '@/components/ui/imported-badge';
import { Labels } from '@/components/ui/labels';
import { StatusBadge, VerdictBadge } from '@/components/ui/status-badge';
import type { Schemas } from '@/lib/api-client';
import { summaryKind } from '@/lib/latency-kind';
import { runName } from '@/lib/run-name';
import { formatAgo, formatCount, formatDuration, formatPercent, formatRate, formatSeconds, formatTime, runSeconds } from '@/lib/format';
import './runs-list.css';

type Run = Schemas['Run'];

interface Props {
  runs: Run[];
  /** Stored tests' names by id, for the Test column. */
  testNames: ReadonlyMap<string, string>;
  selected: readonly string[];
  onToggle: (id: string) => void;
  now: number;
}

/** RunsTable lists runs, one row each, with a checkbox to pick runs to compare. */
export function RunsTable({ runs, testNames, selected, onToggle, now }: Props) {
  return (
    <div className="table-wrap">
      <table className="runs-table" data-testid="runs-table">
        <thead>
          <tr>
            <th>
              <span className="sr-only">Select</span>
            </th>
            <th>Status</th>
            <th>Verdict</th>
            <th>Name</th>
            <th>Test</th>
            <th>Labels</th>
            <th>Target</th>
            <th className="num" title="Requested / actual requests per second">
              QPS req /<br />
              actual
            </th>
            <th className="num" title="Response time for runs paced at a rate, service time for closed-loop and imported runs">
              p50 / p99
            </th>
            <th className="num">Errors</th>
            <th>Started</th>
            <th className="num">Duration</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <RunRow key={r.id} run={r} testName={r.test_id ? testNames.get(r.test_id) : undefined} checked={selected.includes(r.id)} onToggle={onToggle} now={now} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RunRow({ run: r, testName, checked, onToggle, now }: { run: Run; testName?: string; checked: boolean; onToggle: (id: string) => void; now: number }) {
  const s = r.summary;
  const errShare = s && s.count > 0 ? s.errors / s.count : undefined;
  // start_at is when the shards began sending; started_at is when the agents acked, up to 2 s before.
  const started = r.start_at ?? r.started_at ?? r.created_at;
  const name = runName(r);
  return (
    <tr data-run-id={r.id} className={checked ? 'selected' : undefined}>
      <td className="runs-select">
        <input type="checkbox" checked={checked} onChange={() => onToggle(r.id)} aria-label={`Select ${name} to compare`} />
      </td>
      <td data-label="Status">
        <StatusBadge status={r.status} />
        {r.degraded && (
          <span className="badge warn runs-degraded" title="A shard was lost: the result lacks its part">
            degraded
          </span>
        )}
      </td>
      <td data-label="Verdict" className="runs-verdict">
        <VerdictBadge verdict={r.verdict} />
      </td>
      <td className="runs-name">
        <Link to={`/runs/${r.id}`}>{name}</Link>
        <ImportedBadge source={r.source} />
      </td>
      <td data-label="Test" className="runs-test">
        {r.test_id ? (
          <Link to={`/tests/${r.test_id}`} title={r.test_id}>
            {testName ?? r.test_id.slice(0, 8)}
          </Link>
        ) : (
          <span className="muted">–</span>
        )}
      </td>
      <td className="runs-labels" data-label="Labels">
        <Labels labels={r.labels} />
      </td>
      <td className="mono runs-target" title={r.target} data-label="Target">
        {r.target}
      </td>
      <td className="num" data-label="QPS req / actual">
        {r.qps_requested > 0 ? formatRate(r.qps_requested) : 'max'} / {formatRate(s?.qps)}
      </td>
      <td className="num" data-label="p50 / p99">
        {formatDuration(s?.p50_us)} / {formatDuration(s?.p99_us)}
        {s && <div className="runs-kind muted">{summaryKind(r.spec, r.source === 'import' || r.source === 'sync')} time</div>}
      </td>
      <td className="num" data-label="Errors">
        {s ? <span className={s.errors > 0 ? 'runs-errors bad-figure' : undefined}>{`${formatCount(s.errors)} (${formatPercent(errShare ?? 0)})`}</span> : '–'}
      </td>
      <td title={formatTime(started)} className="runs-when" data-label="Started">
        {formatAgo(started, now)}
      </td>
      <td className="num" data-label="Duration">{formatSeconds(runSeconds(r.start_at ?? r.started_at, r.ended_at, now))}</td>
    </tr>
  );
}

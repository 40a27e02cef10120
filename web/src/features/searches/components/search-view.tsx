import { Link } from 'react-router';
import { ChartDownload } from '@/components/ui/chart-download';
import { ErrorState, Loading } from '@/components/ui/states';
import { ApiError, type Schemas } from '@/lib/api-client';
import { formatCount, formatDuration, formatPercent, formatRate, formatTime } from '@/lib/format';
import { can, type Role } from '@/lib/roles';
import { useCancelSearch } from '../api/cancel-search';
import { useSearch } from '../api/get-search';
import { searchAnswer, searchNextStep, stepPoints } from '../utils/steps';
import { SearchStatusBadge } from './search-status-badge';
import { StepChart } from './step-chart';

/** SearchView shows one capacity search: its answer, a step chart and every step, live while it runs. */
export function SearchView({ searchId, role }: { searchId: string; role: Role | undefined }) {
  const search = useSearch(searchId);
  if (search.isPending) return <Loading label="Loading search…" />;
  if (search.error) return <ErrorState error={search.error} retry={() => search.refetch()} />;
  const s = search.data;
  const points = stepPoints(s.steps);
  return (
    <div className="stack" data-testid="search-view">
      <div className="spread">
        <h1 style={{ margin: 0 }}>{s.name || 'Capacity search'}</h1>
        {s.status === 'running' && can(role, 'runner') && <CancelButton id={s.id} />}
      </div>
      <section className="card stack">
        <div className="row">
          <SearchStatusBadge status={s.status} />
          <strong data-testid="search-answer">{searchAnswer(s)}</strong>
        </div>
        <NextStep search={s} />
        <div className="muted">
          <code>{s.objective}</code> between {formatRate(s.min_qps)} and {formatRate(s.max_qps)} qps · steps of {s.step_duration} after{' '}
          {s.warmup} warm-up · resolution {formatPercent(s.resolution)} · target <code>{s.spec.url}</code>
        </div>
      </section>
      <section className="card" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
        <div className="spread">
          <h2 style={{ margin: 0 }}>Steps by rate</h2>
          {points.length > 0 && (
            <ChartDownload
              title="Steps by rate"
              csv={() => ({
                header: ['step', 'target_qps', 'p50_us', 'p99_us', 'error_rate', 'passed'],
                rows: points.map((p) => [p.step + 1, p.qps, p.p50, p.p99, p.errorRate, p.passed ? 'yes' : 'no']),
              })}
            />
          )}
        </div>
        <StepChart points={points} best={s.best_qps} />
      </section>
      <StepsTable steps={s.steps} />
    </div>
  );
}

/** NextStep says, after a search that found no answer in its range, how to search again. */
function NextStep({ search }: { search: Schemas['Search'] }) {
  const text = searchNextStep(search);
  if (!text) return null;
  const lowest = search.outcome === 'not_met' ? search.steps.find((st) => st.qps === search.min_qps && st.run_id) : undefined;
  return (
    <p role="note" className="text-links" data-testid="search-next-step" style={{ margin: 0 }}>
      <strong>Next:</strong> {text}{' '}
      {lowest?.run_id && (
        <>
          <Link to={`/runs/${lowest.run_id}`}>The run at {formatRate(lowest.qps)} qps</Link>.{' '}
        </>
      )}
      <Link to="/searches">Start a new search</Link>.
    </p>
  );
}

function StepsTable({ steps }: { steps: Schemas['SearchStep'][] }) {
  return (
    <div className="table-wrap">
      <table data-testid="search-steps">
        <thead>
          <tr>
            <th className="num">Step</th>
            <th className="num">Target qps</th>
            <th>Result</th>
            <th className="num">Achieved qps</th>
            <th className="num">Requests</th>
            <th className="num">p50</th>
            <th className="num">p99</th>
            <th className="num">Errors</th>
            <th>Run</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {steps.map((st) => (
            <tr key={st.step}>
              <td className="num">{st.step + 1}</td>
              <td className="num">{formatRate(st.qps)}</td>
              <td>
                <span className={`badge ${st.status === 'passed' ? 'ok' : st.status === 'running' ? 'muted' : 'bad'}`}>{st.status}</span>
              </td>
              <td className="num">{st.status === 'running' ? '–' : formatRate(st.achieved_qps)}</td>
              <td className="num">{formatCount(st.count)}</td>
              <td className="num">{formatDuration(st.p50_us)}</td>
              <td className="num">{formatDuration(st.p99_us)}</td>
              <td className="num">{st.count > 0 ? formatPercent(st.errors / st.count) : '–'}</td>
              <td>{st.run_id ? <Link to={`/runs/${st.run_id}`} title={formatTime(st.started_at)}>run</Link> : '–'}</td>
              <td className="muted">{st.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function CancelButton({ id }: { id: string }) {
  const cancel = useCancelSearch();
  const message = cancel.error instanceof ApiError ? (cancel.error.problem.detail ?? cancel.error.problem.title) : cancel.error?.message;
  return (
    <span className="row">
      <button className="danger" data-testid="cancel-search" disabled={cancel.isPending} onClick={() => cancel.mutate(id)}>
        {cancel.isPending ? 'Canceling…' : 'Cancel search'}
      </button>
      {message && (
        <span className="field-error" role="alert">
          Could not cancel: {message}
        </span>
      )}
    </span>
  );
}

import { Link } from 'react-router';
import { Labels } from '@/components/ui/labels';
import { StatusBadge } from '@/components/ui/status-badge';
import type { Schemas } from '@/lib/api-client';
import { formatAgo, formatTime } from '@/lib/format';
import { runName } from '@/lib/run-name';
import { canStop, isTerminal, verdictTone } from '@/lib/run-status';
import type { LiveState } from '../../api/run-events';
import { useTest } from '../../api/get-test';
import { isImported } from '../../utils/imported';
import { IntervalsCsvButton } from './intervals-csv-button';
import { RunAgainButton } from './run-again-button';
import { SaveAsTest } from './save-as-test';
import { StopButton } from './stop-button';
import { DeleteButton, PinButton } from './delete-button';
import { useReadOnly } from '@/lib/read-only';
import { can, type Role } from '@/lib/roles';

const liveText: Record<LiveState, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  ended: 'stream ended',
  unavailable: 'live updates unavailable, polling',
};

interface Props {
  run: Schemas['Run'];
  hasResult: boolean;
  live: LiveState | undefined;
  /** currentUserId turns the creator's id into "you". */
  currentUserId?: string;
  /** roleOf is the caller's role in a project, by id; the actions it does not allow are hidden. */
  roleOf?: (projectId: string) => Role | undefined;
  /** now is the page's clock, for "created … ago". */
  now: number;
}

/** RunHeader names the run and what it targets, with its status, actions and downloads. */
export function RunHeader({ run, hasResult, live, currentUserId, roleOf, now }: Props) {
  const readOnly = useReadOnly();
  // Hide what the API would refuse: runners stop and pin, admins delete.
  const role = roleOf?.(run.project_id);
  const mayRun = !readOnly && can(role, 'runner');
  const mayDelete = !readOnly && can(role, 'admin');
  // A run read from a Fortio document has no spec of ours to send again.
  const native = !isImported(run);
  const base = `/api/v1/runs/${encodeURIComponent(run.id)}/result`;
  const by = run.created_by ? (run.created_by === currentUserId ? 'you' : run.created_by.slice(0, 8)) : undefined;
  return (
    <header className="stack" style={{ gap: 8 }}>
      <div className="spread">
        <div className="run-title">
          <h1>{runName(run)}</h1>
          <StatusBadge status={run.status} testId="run-status" />
          {run.pinned && (
            <span className="badge" data-testid="run-pinned">
              pinned
            </span>
          )}
          {run.verdict && (
            <span className={`badge ${verdictTone(run.verdict)}`} data-testid="run-verdict">
              verdict: {run.verdict}
            </span>
          )}
          {live && live !== 'ended' && (
            <span className={`run-live ${live}`} role="status">
              {liveText[live]}
            </span>
          )}
        </div>
        <div className="run-actions">
          {canStop(run.status) && mayRun && <StopButton runId={run.id} />}
          {native && mayRun && <RunAgainButton run={run} />}
          {native && mayDelete && <SaveAsTest run={run} />}
          {isTerminal(run.status) && mayRun && <PinButton run={run} />}
          {isTerminal(run.status) && mayDelete && <DeleteButton run={run} />}
          {(hasResult || run.status === 'completed') && (
            <>
              <a href={`${base}?format=barrage`} download={`barrage-${run.id}.json`}>
                Download Barrage JSON
              </a>
              <a href={`${base}?format=fortio`} download={`fortio-${run.id}.json`}>
                Download Fortio JSON
              </a>
              <details className="run-downloads">
                <summary>More formats</summary>
                <div className="run-downloads-menu">
                  <a href={`${base}?format=csv`} download={`barrage-${run.id}.csv`}>
                    CSV (percentiles)
                  </a>
                  {native && !run.intervals_dropped_at && <IntervalsCsvButton runId={run.id} />}
                  <a href={`${base}?format=fortio-csv`} download={`fortio-${run.id}.csv`}>
                    Fortio CSV (histogram)
                  </a>
                  <a href={`${base}?format=prometheus`} download={`barrage-${run.id}.prom`}>
                    Prometheus text
                  </a>
                  <a href={`${base}?format=yaml`} download={`barrage-${run.id}.yaml`}>
                    YAML
                  </a>
                </div>
              </details>
            </>
          )}
          <Link to={`/compare?ids=${encodeURIComponent(run.id)}`}>Compare with…</Link>
        </div>
      </div>
      <div className="run-meta">
        <span>
          target <span className="mono">{run.target}</span>
        </span>
        <span title={formatTime(run.created_at)}>
          created {formatAgo(run.created_at, now)}
          {by && <> by {by}</>} via {run.source}
        </span>
        {run.test_id && <TestLink testId={run.test_id} />}
        {(run.start_at ?? run.started_at) && <span>started {formatTime(run.start_at ?? run.started_at)}</span>}
        {run.ended_at && <span>ended {formatTime(run.ended_at)}</span>}
        {run.intervals_dropped_at && (
          <span data-testid="run-intervals-dropped">per-second data dropped by retention {formatTime(run.intervals_dropped_at)}</span>
        )}
        <span>
          id <span className="mono">{run.id}</span>
        </span>
      </div>
      {run.echo_profile && <EchoProfileLine profile={run.echo_profile} />}
      <Labels labels={run.labels} />
    </header>
  );
}

/** EchoProfileLine is the fault profile the managed echo the run targeted had when the run was submitted. */
function EchoProfileLine({ profile }: { profile: Schemas['RunEchoProfile'] }) {
  return (
    <div className="run-meta" data-testid="run-echo-profile">
      <span>
        Echo profile: <Link to="/echo-profiles">{profile.name}</Link> (
        <span className="mono">{profile.content || 'no faults'}</span>) on <span className="mono">{profile.echo}</span>
      </span>
    </div>
  );
}

/** TestLink names the stored test the run ran, with links to its page and its trend. */
function TestLink({ testId }: { testId: string }) {
  const test = useTest(testId);
  const to = `/tests/${encodeURIComponent(testId)}`;
  const name = test.data?.name ?? 'its page';
  return (
    <span data-testid="run-test">
      test <Link to={to}>{name}</Link> ·{' '}
      <Link to={`${to}#trend`} aria-label={`Trend of ${test.data?.name ?? 'the test'}`}>
        trend
      </Link>
    </span>
  );
}

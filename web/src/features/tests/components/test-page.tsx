import { useEffect, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { Labels } from '@/components/ui/labels';
import { ErrorState, Loading } from '@/components/ui/states';
import { ApiError, type Schemas } from '@/lib/api-client';
import { formatAgo, formatTime } from '@/lib/format';
import { summaryKind, type LatencyKind } from '@/lib/latency-kind';
import { useDeleteTest } from '../api/delete-test';
import { useTest } from '../api/get-test';
import { trendRunLimit, useTestTrend } from '../api/get-test-trend';
import { useTestRuns } from '../api/list-test-runs';
import { useReplaceTest } from '../api/replace-test';
import { useRunTest } from '../api/run-test';
import { formValuesOf } from '../utils/test-form';
import { trendChanges, trendLimitLines, trendRows } from '../utils/trend';
import { TestForm } from './test-form';
import { TestRunsTable } from './test-runs-table';
import { TestSchedule } from './test-schedule';
import { TestTrend } from './test-trend';
import './tests.css';
import { useReadOnly } from '@/lib/read-only';

type Props = {
  testId: string;
  editing: boolean;
  onEditingChange: (editing: boolean) => void;
  onRunStarted: (runId: string) => void;
  onDeleted: () => void;
};

/** TestPage shows one stored test: its definition, actions, the trend of its runs and the runs themselves. */
export function TestPage({ testId, editing, onEditingChange, onRunStarted, onDeleted }: Props) {
  const test = useTest(testId);
  const replace = useReplaceTest();

  if (test.isPending) return <Loading />;
  if (test.error) {
    if (test.error instanceof ApiError && test.error.status === 404) {
      return (
        <div className="state error" role="alert">
          <strong>No such test</strong>
          <div>It was deleted, or it is in a project you cannot see.</div>
          <Link to="/tests">Back to tests</Link>
        </div>
      );
    }
    return <ErrorState error={test.error} retry={() => test.refetch()} />;
  }
  const t = test.data;

  if (editing) {
    return (
      <TestForm
        key={t.updated_at}
        title={`Edit ${t.name}`}
        initial={formValuesOf(t)}
        submitLabel="Save test"
        pending={replace.isPending}
        error={replace.error}
        onSubmit={(body) => replace.mutate({ testId, body }, { onSuccess: () => onEditingChange(false) })}
        onCancel={() => {
          replace.reset();
          onEditingChange(false);
        }}
      />
    );
  }

  return (
    <div className="stack">
      <TestHeader test={t} onEdit={() => onEditingChange(true)} onRunStarted={onRunStarted} onDeleted={onDeleted} />
      <TestDefinition test={t} />
      <TestRuns testId={testId} kind={summaryKind(t.spec)} />
    </div>
  );
}

function TestHeader({ test: t, onEdit, onRunStarted, onDeleted }: {
  test: Schemas['Test'];
  onEdit: () => void;
  onRunStarted: (runId: string) => void;
  onDeleted: () => void;
}) {
  const readOnly = useReadOnly();
  const run = useRunTest();
  const del = useDeleteTest();
  const [confirming, setConfirming] = useState(false);
  const failure = run.error ?? del.error;

  return (
    <header className="stack" style={{ gap: 8 }}>
      <div className="test-head">
        <h1>{t.name}</h1>
        {!readOnly && (
        <div className="actions">
          <button type="button" className="primary" disabled={run.isPending}
            onClick={() => run.mutate(t.id, { onSuccess: (r) => onRunStarted(r.id) })}>
            {run.isPending ? 'Starting…' : 'Run now'}
          </button>
          <Link className="button" to={`/runs/new?test=${t.id}`}>
            New run from this test
          </Link>
          <button type="button" onClick={onEdit}>
            Edit
          </button>
          {confirming ? (
            <span className="confirm" role="group" aria-label="Confirm delete">
              Delete this test? Its runs stay.
              <button type="button" className="danger" disabled={del.isPending}
                onClick={() => del.mutate(t.id, { onSuccess: onDeleted })}>
                {del.isPending ? 'Deleting…' : 'Delete'}
              </button>
              <button type="button" onClick={() => setConfirming(false)} autoFocus>
                Keep
              </button>
            </span>
          ) : (
            <button type="button" className="danger" onClick={() => setConfirming(true)}>
              Delete…
            </button>
          )}
        </div>
        )}
      </div>
      {t.description && <p style={{ margin: 0 }}>{t.description}</p>}
      <div className="test-meta">
        <span className="mono target">{t.spec.url}</span>
        <Labels labels={t.labels} />
        <span title={formatTime(t.updated_at)}>updated {formatAgo(t.updated_at)}</span>
      </div>
      <TestSchedule test={t} />
      {failure && (
        <div className="field-error" role="alert">
          {failure instanceof ApiError ? (failure.problem.detail ?? failure.problem.title) : 'Cannot reach the API'}
        </div>
      )}
    </header>
  );
}

function TestDefinition({ test: t }: { test: Schemas['Test'] }) {
  return (
    <div className="grid-2">
      <section className="card">
        <h2>Thresholds</h2>
        {t.thresholds.length === 0 ? (
          <p className="muted" style={{ margin: 0 }}>
            None.
          </p>
        ) : (
          <ul className="thresholds mono">
            {t.thresholds.map((th, i) => (
              <li key={i}>{th}</li>
            ))}
          </ul>
        )}
        <p className="muted" style={{ margin: '8px 0 0' }} data-testid="test-baseline">
          {t.baseline_last
            ? `Baseline: the last ${t.baseline_last} passing runs of this test, pooled, unless a run names its own.`
            : 'Baseline: the newest passing run of this test, unless a run names its own.'}
        </p>
      </section>
      <section className="card">
        <details>
          <summary>
            <strong>Spec</strong>{' '}
            <span className="muted">
              {[t.spec.qps !== undefined && `${t.spec.qps || 'max'} qps`, t.spec.duration !== undefined && `${t.spec.duration}`,
                t.spec.connections !== undefined && `${t.spec.connections} connections`].filter(Boolean).join(' · ')}
            </span>
          </summary>
          <pre className="spec-json">{JSON.stringify(t.spec, null, 2)}</pre>
        </details>
      </section>
    </div>
  );
}

function TestRuns({ testId, kind }: { testId: string; kind: LatencyKind }) {
  const runs = useTestRuns(testId);
  return (
    <>
      <section className="stack" style={{ gap: 8 }} id="trend" aria-labelledby="trend-h" tabIndex={-1}>
        <h2 id="trend-h" style={{ margin: 0 }}>Trend</h2>
        <TrendSection testId={testId} kind={kind} />
      </section>
      <section className="stack" style={{ gap: 8 }}>
        <h2 style={{ margin: 0 }}>Recent runs</h2>
        {runs.isPending ? (
          <Loading label="Loading runs…" />
        ) : runs.error ? (
          <ErrorState error={runs.error} retry={() => runs.refetch()} />
        ) : (
          <TestRunsTable runs={runs.data.items} now={runs.dataUpdatedAt} />
        )}
      </section>
    </>
  );
}

function TrendSection({ testId, kind }: { testId: string; kind: LatencyKind }) {
  const trend = useTestTrend(testId);
  const { hash } = useLocation();
  const loaded = trend.isSuccess;
  // A link to the test's trend (a run's page has one) lands on it once it is drawn.
  useEffect(() => {
    if (!loaded || hash !== '#trend') return;
    const el = document.getElementById('trend');
    el?.scrollIntoView({ block: 'start' });
    el?.focus({ preventScroll: true });
  }, [loaded, hash]);
  if (trend.isPending) return <Loading label="Loading trend…" />;
  if (trend.error) return <ErrorState error={trend.error} retry={() => trend.refetch()} />;
  const { items, change_points: changePoints, limits } = trend.data;
  const rows = trendRows(items);
  return (
    <>
      <p className="muted" style={{ margin: 0, fontSize: '0.85rem' }}>
        {items.length >= trendRunLimit ? `The latest ${trendRunLimit} runs` : 'Every run'} with a result, by start time.
      </p>
      <TestTrend rows={rows} changes={trendChanges(changePoints, rows)} limits={trendLimitLines(limits)} kind={kind} />
    </>
  );
}

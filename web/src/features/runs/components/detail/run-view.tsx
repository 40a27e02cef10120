import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { Role } from '@/lib/roles';
import { ErrorState, Loading } from '@/components/ui/states';
import type { Schemas } from '@/lib/api-client';
import { isTerminal } from '@/lib/run-status';
import { useNow } from '@/lib/use-now';
import { useRun } from '../../api/get-run';
import { useRunResult } from '../../api/get-run-result';
import { useRunIntervals } from '../../api/list-run-intervals';
import { seriesStep } from '../../utils/series-step';
import { prefetchEndedRun } from '../../api/prefetch-run';
import { useRunEvents } from '../../api/run-events';
import { failureAdvice } from '../../utils/failure';
import { isImported } from '../../utils/imported';
import type { LatencyKind } from '../../utils/series';
import { AgentsLive } from './agents-live';
import { EntriesTable } from './entries-table';
import { GeneratorLimitedNotice } from './generator-limited-notice';
import { ImportedBuckets } from './imported-buckets';
import { ImportedNotice } from './imported-notice';
import { LagNotice } from './lag-notice';
import { LatencyHistogram } from './latency-histogram';
import { LiveHeadline } from './live-headline';
import { LivePanel } from './live-panel';
import { PercentileSpectrum } from './percentile-spectrum';
import { PercentileTable } from './percentile-table';
import { PhasesTable } from './phases-table';
import { ResultSummary } from './result-summary';
import { RetCodesTable } from './ret-codes-table';
import { RunCharts } from './run-charts';
import { RunHeader } from './run-header';
import { ShardsTable } from './shards-table';
import { SpecView } from './spec-view';
import { StepsTable } from './steps-table';
import { ThresholdsCard } from './thresholds-card';
import { TimelineChart } from './timeline-chart';
import { WrittenUrls } from './written-urls';
import './run.css';

/** FailureNextStep says what to do after a run failed or was canceled (failureAdvice). */
function FailureNextStep({ run }: { run: Schemas['Run'] }) {
  const advice = failureAdvice(run);
  if (!advice) return null;
  return (
    <div className="detail" data-testid="run-next-step">
      Next: {advice.text}
      {advice.agents && (
        <>
          {' '}
          <Link to="/agents">See the agents</Link>.
        </>
      )}
    </div>
  );
}

/** The latency a run shows first before its result names one: response time in open loop. */
function defaultPrimary(spec: Schemas['RunSpec']): LatencyKind {
  const open = spec.pacing ? spec.pacing === 'open' : (spec.qps ?? 0) > 0 || spec.ramp !== undefined;
  return open ? 'response' : 'service';
}

interface Props {
  runId: string;
  currentUserId?: string;
  /** roleOf is the caller's role in a project, by id (RunHeader hides what it does not allow). */
  roleOf?: (projectId: string) => Role | undefined;
}

/** RunView is one run: live progress while it runs, its result once it has one. */
export function RunView({ runId, currentUserId, roleOf }: Props) {
  const run = useRun(runId, true);
  const status = run.data?.status;
  const ended = isTerminal(status);
  const live = useRunEvents(runId, status);
  // Imported runs (known by their source) have no seconds; native runs ask once the run says how long
  // it was: an ended run's seconds come in windows of step seconds (seriesStep).
  const imported = run.data ? isImported(run.data) : false;
  const step = run.data ? seriesStep(run.data) : 1;
  const intervals = useRunIntervals(runId, { poll: live === 'unavailable' && !ended, enabled: !!run.data && !imported, step });
  const result = useRunResult(runId, ended);
  const now = useNow(1_000, !ended);
  // A native run's histogram and timeline are asked for as soon as it has ended (here for a
  // run that ends while watched; the route's loader asks for one that had ended already).
  const qc = useQueryClient();
  const source = run.data?.source;
  useEffect(() => {
    if (source !== undefined && status !== undefined) prefetchEndedRun(qc, { id: runId, status, source });
  }, [qc, runId, status, source]);

  if (run.isPending) return <Loading />;
  if (run.error) return <ErrorState error={run.error} retry={() => run.refetch()} />;
  const r = run.data;
  const res = result.data ?? undefined;
  const primary: LatencyKind = res?.primary ?? defaultPrimary(r.spec);
  const fromDocument = isImported(r, res);

  return (
    <div className="stack">
      <RunHeader run={r} hasResult={!!res} live={live} currentUserId={currentUserId} roleOf={roleOf} now={now} />
      {!ended && <LivePanel run={r} now={now} />}
      {!ended && !fromDocument && <LiveHeadline run={r} intervals={intervals.data} kind={primary === 'service' ? 'service' : 'response'} />}
      {!ended && !fromDocument && r.shard_count > 0 && <AgentsLive runId={runId} />}
      {ended && r.error && (
        <div className="run-notice bad" role="alert">
          <strong>The run {r.status === 'canceled' ? 'was canceled' : 'failed'}.</strong>
          <div className="detail">{r.error}</div>
          <FailureNextStep run={r} />
        </div>
      )}
      {ended && result.isPending && <Loading label="Loading result…" />}
      {ended && result.error && <ErrorState error={result.error} retry={() => result.refetch()} />}
      {ended && result.data === null && !r.error && (
        <div className="run-notice warn" role="status">
          This run ended without a result{r.status === 'canceled' ? ': it was canceled before any shard reported' : ''}.
        </div>
      )}
      <ThresholdsCard run={r} />
      {fromDocument && <ImportedNotice origin={res?.origin} />}
      {res && (
        <>
          {!fromDocument && <GeneratorLimitedNotice result={res} />}
          {!fromDocument && <LagNotice result={res} />}
          <ResultSummary result={res} />
          <StepsTable result={res} />
          <div className="grid-2">
            {fromDocument ? <ImportedBuckets buckets={res.buckets} /> : <LatencyHistogram runId={runId} primary={res.primary} />}
            <PercentileTable result={res} />
          </div>
          {!fromDocument && <PercentileSpectrum result={res} />}
          {!fromDocument && <PhasesTable result={res} />}
        </>
      )}
      {fromDocument ? null : intervals.isPending ? (
        <Loading label="Loading seconds…" />
      ) : intervals.error ? (
        <ErrorState error={intervals.error} retry={() => intervals.refetch()} />
      ) : (
        <RunCharts run={r} intervals={intervals.data} step={intervals.isPlaceholderData ? 1 : step} primary={primary} live={!ended} />
      )}
      {res && !fromDocument && <TimelineChart runId={runId} />}
      {!fromDocument && <ShardsTable runId={runId} status={status} now={now} />}
      {res && <EntriesTable result={res} />}
      {res && <WrittenUrls runId={runId} result={res} />}
      {res && <RetCodesTable result={res} />}
      <SpecView spec={r.spec} />
    </div>
  );
}

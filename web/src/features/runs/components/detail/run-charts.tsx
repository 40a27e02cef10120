import { memo, useMemo } from 'react';
import { Empty } from '@/components/ui/states';
import type { Schemas } from '@/lib/api-client';
import { timeDomain } from '../../utils/chart-axis';
import { plannedSeconds } from '../../utils/duration';
import type { Interval } from '../../utils/intervals';
import { storedSeconds, targetRate, type LatencyKind } from '../../utils/series';
import { useViewParam } from '../../hooks/use-view-param';
import { viewParams } from '../../utils/view-params';
import { seriesStep } from '../../utils/series-step';
import { AgentCharts } from './agent-charts';
import { CodesChart } from './codes-chart';
import { IterationsChart } from './iterations-chart';
import { LatencyChart } from './latency-chart';
import { QpsChart } from './qps-chart';

interface Props {
  run: Schemas['Run'];
  intervals: readonly Interval[];
  /** step is the seconds each of intervals spans: 1, or an ended long run's windows (seriesStep). */
  step: number;
  primary: LatencyKind;
  /** live stretches the time axis over the whole planned run. */
  live: boolean;
}

/**
 * RunCharts are the per-second charts of a run, the same live and after it
 * ended. Memoized: the page ticks every second for its clock, and the charts
 * need to redraw only when their seconds change.
 */
export const RunCharts = memo(function RunCharts({ run, intervals, step, primary, live }: Props) {
  const target = useMemo(() => targetRate(run.spec, run.qps_requested), [run.spec, run.qps_requested]);
  const lastRow = intervals[intervals.length - 1];
  // A window's last second is about its start plus its stored seconds.
  const last = lastRow && lastRow.second + (lastRow.seconds ?? 1) - 1;
  const received = useMemo(() => storedSeconds(intervals), [intervals]);
  const domain = useMemo(() => timeDomain(last, live ? plannedSeconds(run.spec) : undefined), [last, live, run.spec]);
  // Per agent: the rate and latency charts draw one line per shard instead of the merged series.
  const [agents, setAgents] = useViewParam<'on' | 'off'>(viewParams.agents, ['on', 'off'], 'off');
  return (
    <section className="stack" aria-label="Per-second charts">
      <div className="spread">
        <h2 style={{ margin: 0 }}>Per second</h2>
        <span className="run-chart-note" data-testid="live-points">
          {received} second{received === 1 ? '' : 's'} received{step > 1 ? `, drawn in windows of ${step} s` : ''}
        </span>
        <div className="run-seg" role="group" aria-label="Lines shown">
          <button type="button" aria-pressed={agents === 'on'} onClick={() => setAgents(agents === 'on' ? 'off' : 'on')} title="One line per agent (shard)">
            Per agent
          </button>
        </div>
      </div>
      {!live && intervals.length === 0 ? (
        <Empty>No per-second figures were recorded.</Empty>
      ) : (
        <div className="grid-2">
          {agents === 'on' ? (
            <AgentCharts runId={run.id} step={live ? 1 : seriesStep(run)} domain={domain} primary={primary} />
          ) : (
            <>
              <QpsChart intervals={intervals} step={step} target={target} domain={domain} />
              <LatencyChart key={primary} intervals={intervals} initial={primary} domain={domain} />
            </>
          )}
          {run.spec.scenario && <IterationsChart intervals={intervals} target={run.spec.iterations_per_second} domain={domain} />}
          <CodesChart intervals={intervals} domain={domain} />
        </div>
      )}
    </section>
  );
});

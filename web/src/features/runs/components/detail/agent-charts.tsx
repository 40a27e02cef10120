import { useMemo } from 'react';
import { ChartTable } from '@/components/ui/chart-table';
import { Empty, ErrorState, Loading } from '@/components/ui/states';
import { formatDuration, formatRate } from '@/lib/format';
import { useRunShardIntervals } from '../../api/list-run-shard-intervals';
import { useViewParam } from '../../hooks/use-view-param';
import { agentLines, agentRows, type AgentLine } from '../../utils/agent-series';
import { clock } from '../../utils/chart-axis';
import { downsample } from '../../utils/downsample';
import type { LatencyKind } from '../../utils/series';
import { viewParams } from '../../utils/view-params';
import { ChartLegend } from './chart-legend';
import { ChartArea } from '@/components/ui/chart-area';
import { plots } from './plots-code';

const latencyKinds: readonly LatencyKind[] = ['response', 'service', 'lag'];

/** lineColor cycles the six chart colours, dashing the second round so twelve agents stay apart. */
function lineColor(i: number): { stroke: string; dash?: string } {
  return { stroke: `var(--chart-${(i % 6) + 1})`, dash: i >= 6 ? '5 3' : undefined };
}

interface ChartProps {
  title: string;
  note: string;
  lines: readonly AgentLine[];
  rows: ReturnType<typeof agentRows>;
  domain: [number, number];
  format: (v: number) => string;
  testId: string;
}

/** AgentChart draws one line per agent, with its legend and table view. */
function AgentChart({ title, note, lines, rows, domain, format, testId }: ChartProps) {
  const keys = useMemo(() => lines.map((l) => l.key), [lines]);
  const drawn = useMemo(() => downsample(rows, keys), [rows, keys]);
  return (
    <section className="card" aria-label={title} data-testid={testId}>
      <div className="run-chart-head">
        <h2>{title}</h2>
        <span className="run-chart-note">{note}</span>
      </div>
      <ChartArea code={plots}>
        {(p) => (
          <p.SecondsPlot
            rows={drawn}
            domain={domain}
            format={format}
            width={64}
            lines={lines.map((l, i) => ({ key: l.key, name: l.label, color: lineColor(i).stroke, dash: lineColor(i).dash, width: 1.5, className: 'agent-line' }))}
          />
        )}
      </ChartArea>
      <ChartLegend items={lines.map((l, i) => ({ label: l.label, color: lineColor(i).stroke, dashed: !!lineColor(i).dash }))} />
      <ChartTable
        title={title}
        rows={rows}
        rowKey={(r) => r.t}
        columns={[
          { label: 'Second', value: (r) => clock(r.t) },
          ...lines.map((l) => ({ label: l.label, value: (r: (typeof rows)[number]) => (r[l.key] === undefined ? '–' : format(r[l.key]!)), num: true })),
        ]}
      />
    </section>
  );
}

interface Props {
  runId: string;
  /** step is the seconds per row read (shardStep): 1 live, wider for an ended long run. */
  step?: number;
  domain: [number, number];
  /** primary is the latency shown when the URL names none (the run's headline one). */
  primary: LatencyKind;
}

/**
 * AgentCharts are the rate and latency charts with one line per agent
 * (shard), from the per-shard seconds (GET /runs/{run}/shards/intervals,
 * kept current by the live stream's shards events). The latency chart draws
 * each agent's p99 of the latency the merged chart shows (its URL toggle).
 * An ended long run is read in windows of step seconds: each agent's mean
 * rate and largest p99 of the window.
 */
export function AgentCharts({ runId, step = 1, domain, primary }: Props) {
  const shardRows = useRunShardIntervals(runId, true, step);
  const [kind] = useViewParam<LatencyKind>(viewParams.latency, latencyKinds, primary);
  const data = shardRows.data;
  const lines = useMemo(() => agentLines(data ?? []), [data]);
  const qps = useMemo(() => agentRows(data ?? [], 'qps'), [data]);
  const p99 = useMemo(() => agentRows(data ?? [], kind), [data, kind]);
  if (shardRows.isPending) return <Loading label="Loading agents' seconds…" />;
  if (shardRows.error) return <ErrorState error={shardRows.error} retry={() => shardRows.refetch()} />;
  if (lines.length === 0) return <Empty>No per-agent figures were recorded for this run.</Empty>;
  return (
    <>
      <AgentChart title="Requests per second, per agent" note={`${lines.length} agent${lines.length === 1 ? '' : 's'}${step > 1 ? `, mean of ${step}-second windows` : ''}`} lines={lines} rows={qps} domain={domain} format={formatRate} testId="agent-qps-chart" />
      <AgentChart title={`Latency p99 per agent, ${kind} time`} note={step > 1 ? `largest p99 of each agent's ${step}-second window` : "p99 of each agent's second"} lines={lines} rows={p99} domain={domain} format={formatDuration} testId="agent-latency-chart" />
    </>
  );
}

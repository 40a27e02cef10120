import { useMemo } from 'react';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { formatDuration } from '@/lib/format';
import { clock } from '../../utils/chart-axis';
import { downsample } from '../../utils/downsample';
import type { Interval } from '../../utils/intervals';
import { latencyKeys, latencyRows, type LatencyKind } from '../../utils/series';
import { ChartLegend } from './chart-legend';
import { useViewParam } from '../../hooks/use-view-param';
import { viewParams } from '../../utils/view-params';
import { ChartArea } from '@/components/ui/chart-area';
import { plots } from './plots-code';

const kinds: { kind: LatencyKind; label: string; hint: string }[] = [
  { kind: 'response', label: 'response', hint: 'intended send to response done (includes waiting)' },
  { kind: 'service', label: 'service', hint: 'actual send to response done' },
  { kind: 'lag', label: 'lag', hint: 'intended send to actual send' },
];
const latencyKinds = kinds.map((k) => k.kind);
const colors: Record<(typeof latencyKeys)[number], string> = {
  p50: 'var(--chart-3)',
  p90: 'var(--chart-2)',
  p99: 'var(--chart-1)',
  max: 'var(--chart-4)',
};

interface Props {
  intervals: readonly Interval[];
  /** initial is the latency shown first: the run's primary one. */
  initial: LatencyKind;
  domain: [number, number];
}

/** LatencyChart draws per-second p50/p90/p99/max of one latency, chosen by a toggle. */
export function LatencyChart({ intervals, initial, domain }: Props) {
  const [kind, setKind] = useViewParam<LatencyKind>(viewParams.latency, latencyKinds, initial);
  const rows = useMemo(() => downsample(latencyRows(intervals, kind), latencyKeys), [intervals, kind]);
  return (
    <section className="card" aria-label="Latency per second">
      <div className="run-chart-head">
        <h2>Latency</h2>
        <div className="run-seg" role="group" aria-label="Latency shown">
          {kinds.map((k) => (
            <button key={k.kind} type="button" aria-pressed={kind === k.kind} title={k.hint} onClick={() => setKind(k.kind)}>
              {k.label}
              {k.kind === initial ? ' ★' : ''}
            </button>
          ))}
        </div>
        <ChartDownload
          title={`Latency per second, ${kind} time`}
          csv={() => ({
            header: ['second', ...latencyKeys.map((k) => `${k}_${kind}_us`)],
            rows: rows.map((r) => [r.t, ...latencyKeys.map((k) => r[k])]),
          })}
        />
      </div>
      <ChartArea code={plots}>
        {(p) => (
          <p.SecondsPlot
            rows={rows}
            domain={domain}
            format={formatDuration}
            width={64}
            lines={latencyKeys.map((k) => ({ key: k, name: k, color: colors[k], width: k === 'p99' ? 2 : 1.5 }))}
          />
        )}
      </ChartArea>
      <ChartLegend items={latencyKeys.map((k) => ({ label: k, color: colors[k] }))} />
      <ChartTable
        title={`Latency per second, ${kind} time`}
        rows={rows}
        rowKey={(r) => r.t}
        columns={[{ label: 'Second', value: (r) => clock(r.t) }, ...latencyKeys.map((k) => ({ label: k, value: (r: (typeof rows)[number]) => formatDuration(r[k]), num: true }))]}
      />
    </section>
  );
}

import { useMemo } from 'react';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { formatRate } from '@/lib/format';
import { clock } from '../../utils/chart-axis';
import { downsample } from '../../utils/downsample';
import type { Interval } from '../../utils/intervals';
import { iterationRows } from '../../utils/series';
import { ChartLegend } from './chart-legend';
import { ChartArea } from '@/components/ui/chart-area';
import { plots } from './plots-code';

interface Props {
  intervals: readonly Interval[];
  /** target is the iterations per second asked for; undefined for a closed loop. */
  target?: number;
  domain: [number, number];
}

const series = [
  { key: 'started', label: 'started', color: 'var(--chart-1)' },
  { key: 'completed', label: 'completed', color: 'var(--chart-3)' },
  { key: 'failed', label: 'failed', color: 'var(--bad)' },
] as const;

/**
 * IterationsChart draws a scenario run's iterations per second
 * (docs/scenarios.md): those started, and those that ended completed or
 * failed, against the rate asked for in open loop.
 */
export function IterationsChart({ intervals, target, domain }: Props) {
  const rows = useMemo(() => downsample(iterationRows(intervals), ['started', 'completed', 'failed']), [intervals]);
  return (
    <section className="card" aria-label="Iterations per second">
      <div className="run-chart-head">
        <h2>Iterations per second</h2>
        <span className="run-chart-note">{target ? `target ${formatRate(target)} started/s` : 'closed loop'}</span>
        <ChartDownload
          title="Iterations per second"
          csv={() => ({ header: ['second', 'started', 'completed', 'failed'], rows: rows.map((r) => [r.t, r.started, r.completed, r.failed]) })}
        />
      </div>
      <ChartArea code={plots}>
        {(p) => (
          <p.SecondsPlot
            rows={rows}
            domain={domain}
            format={formatRate}
            lines={series.map((s) => ({ key: s.key, name: s.label, color: s.color, width: s.key === 'started' ? 2 : 1.5 }))}
          />
        )}
      </ChartArea>
      <ChartLegend items={series.map((s) => ({ label: s.label, color: s.color }))} />
      <ChartTable
        title="Iterations per second"
        rows={rows}
        rowKey={(r) => r.t}
        columns={[
          { label: 'Second', value: (r) => clock(r.t) },
          ...series.map((s) => ({ label: `Iterations ${s.label}`, value: (r: (typeof rows)[number]) => formatRate(r[s.key] ?? 0), num: true })),
        ]}
      />
    </section>
  );
}

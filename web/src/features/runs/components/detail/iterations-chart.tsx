import { secondsAxes } from './seconds-axes';
import { useMemo } from 'react';
import { Line, LineChart, ResponsiveContainer } from 'recharts';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { formatRate } from '@/lib/format';
import { clock } from '../../utils/chart-axis';
import { downsample } from '../../utils/downsample';
import type { Interval } from '../../utils/intervals';
import { iterationRows } from '../../utils/series';
import { ChartLegend } from './chart-legend';
import { ChartArea } from '@/components/ui/chart-area';

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
      <ChartArea>
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={rows} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
            {secondsAxes(domain, { format: formatRate })}
            {series.map((s) => (
              <Line key={s.key} dataKey={s.key} name={s.label} stroke={s.color} strokeWidth={s.key === 'started' ? 2 : 1.5} dot={false} isAnimationActive={false} type="linear" />
            ))}
          </LineChart>
        </ResponsiveContainer>
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

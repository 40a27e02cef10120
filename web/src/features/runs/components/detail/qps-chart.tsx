import { useMemo } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartTable } from '@/components/ui/chart-table';
import { liveAxisProps, liveGridProps, tooltipLabelStyle, tooltipStyle } from '@/components/ui/chart-style';
import { formatRate } from '@/lib/format';
import { clock, timeTicks } from '../../utils/chart-axis';
import { downsample } from '../../utils/downsample';
import type { Interval } from '../../utils/intervals';
import { qpsRows } from '../../utils/series';
import { ChartLegend } from './chart-legend';

interface Props {
  intervals: readonly Interval[];
  target?: (second: number) => number;
  domain: [number, number];
}

/** QpsChart draws achieved qps per second against the requested rate. */
export function QpsChart({ intervals, target, domain }: Props) {
  const rows = useMemo(() => downsample(qpsRows(intervals, target), ['qps', 'target']), [intervals, target]);
  return (
    <section className="card" aria-label="Requests per second">
      <div className="run-chart-head">
        <h2>Requests per second</h2>
        <span className="run-chart-note">{target ? 'achieved vs target' : 'achieved (no target rate)'}</span>
      </div>
      <div className="chart" data-testid="live-chart">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={rows} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
            <CartesianGrid {...liveGridProps} />
            <XAxis dataKey="t" type="number" domain={domain} ticks={timeTicks(domain)} tickFormatter={clock} {...liveAxisProps} interval="preserveStartEnd" />
            <YAxis tickFormatter={(v: number) => formatRate(v)} width={52} {...liveAxisProps} domain={[0, 'auto']} />
            <Tooltip
              contentStyle={tooltipStyle}
              labelStyle={tooltipLabelStyle}
              labelFormatter={(t) => `at ${clock(Number(t))}`}
              formatter={(v) => formatRate(Number(v))}
              isAnimationActive={false}
            />
            {target && (
              <Line
                dataKey="target"
                name="target"
                stroke="var(--muted)"
                strokeDasharray="5 4"
                dot={false}
                isAnimationActive={false}
                type="linear"
              />
            )}
            <Line dataKey="qps" name="achieved" stroke="var(--chart-1)" strokeWidth={2} dot={false} isAnimationActive={false} type="linear" />
          </LineChart>
        </ResponsiveContainer>
      </div>
      <ChartLegend
        items={[{ label: 'achieved', color: 'var(--chart-1)' }, ...(target ? [{ label: 'target', color: 'var(--muted)', dashed: true }] : [])]}
      />
      <ChartTable
        title="Requests per second"
        rows={rows}
        rowKey={(r) => r.t}
        columns={[
          { label: 'Second', value: (r) => clock(r.t) },
          { label: 'Achieved qps', value: (r) => formatRate(r.qps), num: true },
          ...(target ? [{ label: 'Target qps', value: (r: (typeof rows)[number]) => formatRate(r.target), num: true }] : []),
        ]}
      />
    </section>
  );
}

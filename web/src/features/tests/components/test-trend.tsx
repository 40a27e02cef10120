import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartTable } from '@/components/ui/chart-table';
import { axisProps, gridProps, legendStyle, legendText, tooltipStyle } from '@/components/ui/chart-style';
import { formatCount, formatDuration, formatRate, formatTime } from '@/lib/format';
import { timeTick, trendDomain, type TrendRow } from '../utils/trend';

/** TestTrend follows a test's runs over time: p50/p99, and qps with errors. */
export function TestTrend({ rows }: { rows: TrendRow[] }) {
  if (rows.length === 0) {
    return <div className="state">No finished run of this test yet: run it to start its trend.</div>;
  }
  const domain = trendDomain(rows);
  const tick = timeTick(domain[1] - domain[0]);
  const xAxis = (
    <XAxis dataKey="t" type="number" scale="time" domain={domain} {...axisProps} tickFormatter={tick} minTickGap={24}
      padding={{ left: 16, right: 16 }} />
  );
  const label = (_: unknown, payload: readonly { payload?: TrendRow }[]) => {
    const r = payload[0]?.payload;
    return r ? `${r.name} · ${formatTime(new Date(r.t).toISOString())}` : '';
  };
  const dots = rows.length < 40;
  return (
    <div className="grid-2" data-testid="test-trend">
      <section className="card" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
        <h3 style={{ margin: 0 }}>Latency</h3>
        <div className="chart">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
              <CartesianGrid {...gridProps} />
              {xAxis}
              <YAxis {...axisProps} tickFormatter={(v: number) => formatDuration(v)} width={64} />
              <Tooltip contentStyle={tooltipStyle} labelFormatter={label} formatter={(v, name) => [formatDuration(Number(v)), name]} />
              <Legend wrapperStyle={legendStyle} itemSorter={null} formatter={legendText} />
              <Line dataKey="p50" name="p50" stroke="var(--chart-2)" strokeWidth={2} dot={dots} isAnimationActive={false} />
              <Line dataKey="p99" name="p99" stroke="var(--chart-1)" strokeWidth={2} dot={dots} isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </div>
      </section>
      <section className="card" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
        <h3 style={{ margin: 0 }}>Throughput and errors</h3>
        <div className="chart">
          <ResponsiveContainer width="100%" height="100%">
            <ComposedChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid {...gridProps} />
              {xAxis}
              <YAxis yAxisId="qps" {...axisProps} tick={{ fill: 'var(--chart-3)', fontSize: 12 }}
                tickFormatter={(v: number) => `${formatRate(v)}/s`} width={60} />
              <YAxis yAxisId="errors" orientation="right" {...axisProps} tick={{ fill: 'var(--chart-6)', fontSize: 12 }}
                allowDecimals={false} tickFormatter={(v: number) => formatCount(v)} width={44} />
              <Tooltip
                contentStyle={tooltipStyle}
                labelFormatter={label}
                formatter={(v, name) => [name === 'qps' ? formatRate(Number(v)) : formatCount(Number(v)), name]}
              />
              <Legend wrapperStyle={legendStyle} itemSorter={null} formatter={legendText} />
              <Bar yAxisId="errors" dataKey="errors" name="errors" fill="var(--chart-6)" maxBarSize={14} isAnimationActive={false} />
              <Line yAxisId="qps" dataKey="qps" name="qps" stroke="var(--chart-3)" strokeWidth={2} dot={dots} isAnimationActive={false} />
            </ComposedChart>
          </ResponsiveContainer>
        </div>
      </section>
      <ChartTable
        title="Trend of the test's runs"
        rows={rows}
        rowKey={(r) => r.id}
        columns={[
          { label: 'Run', value: (r) => r.name },
          { label: 'Started', value: (r) => formatTime(new Date(r.t).toISOString()) },
          { label: 'p50', value: (r) => formatDuration(r.p50), num: true },
          { label: 'p99', value: (r) => formatDuration(r.p99), num: true },
          { label: 'QPS', value: (r) => formatRate(r.qps), num: true },
          { label: 'Errors', value: (r) => formatCount(r.errors), num: true },
        ]}
      />
    </div>
  );
}

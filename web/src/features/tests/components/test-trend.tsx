import { Link } from 'react-router';
import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { runName } from '@/lib/run-name';
import { axisProps, gridProps, legendStyle, legendText, tooltipStyle } from '@/components/ui/chart-style';
import type { LatencyKind } from '@/lib/latency-kind';
import { formatCount, formatDuration, formatRate, formatTime } from '@/lib/format';
import { timeTick, trendDomain, type TrendChange, type TrendRow } from '../utils/trend';

/** changeColor is the colour of a change's marker: its metric's line, p90 (not charted) neutral. */
function changeColor(metric: TrendChange['metric']): string {
  if (metric === 'p99') return 'var(--chart-1)';
  if (metric === 'p50') return 'var(--chart-2)';
  return 'var(--muted)';
}

/** ChangeMark is a change's marker at the top of its run's line: a triangle whose tooltip says the change. */
function ChangeMark({ viewBox, change }: { viewBox?: { x?: number; y?: number }; change: TrendChange }) {
  const x = viewBox?.x ?? 0;
  const y = viewBox?.y ?? 0;
  return (
    <g className="trend-change" data-testid="trend-change" data-metric={change.metric}>
      <title>{change.text}</title>
      <path d={`M${x - 6},${y} L${x + 6},${y} L${x},${y + 10} Z`} fill={changeColor(change.metric)} />
    </g>
  );
}

/**
 * TestTrend follows a test's runs over time: p50/p99, and qps with errors.
 * The runs where a latency's level changed are marked on the latency chart
 * and listed under it.
 */
export function TestTrend({ rows, changes = [], kind }: { rows: TrendRow[]; changes?: TrendChange[]; kind: LatencyKind }) {
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
    if (!r) return '';
    const here = changes.filter((c) => c.id === r.id).map((c) => c.text);
    return [`${r.name} · ${formatTime(new Date(r.t).toISOString())}`, ...here].join(' · ');
  };
  const dots = rows.length < 40;
  return (
    <div className="grid-2" data-testid="test-trend">
      <section className="card" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
        <h3 style={{ margin: 0 }}>Latency ({kind} time)</h3>
        <ChartDownload title={`Trend latency, ${kind} time`} csv={() => trendCsv(rows, kind)} />
        <div className="chart">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
              <CartesianGrid {...gridProps} />
              {xAxis}
              <YAxis {...axisProps} tickFormatter={(v: number) => formatDuration(v)} width={64} />
              <Tooltip contentStyle={tooltipStyle} labelFormatter={label} formatter={(v, name) => [formatDuration(Number(v)), name]} />
              <Legend wrapperStyle={legendStyle} itemSorter={null} formatter={legendText} />
              <Line dataKey="p50" name={`p50 ${kind}`} stroke="var(--chart-2)" strokeWidth={2} dot={dots} isAnimationActive={false} />
              <Line dataKey="p99" name={`p99 ${kind}`} stroke="var(--chart-1)" strokeWidth={2} dot={dots} isAnimationActive={false} />
              {changes.map((c) => (
                <ReferenceLine key={`${c.metric}-${c.id}`} x={c.t} stroke={changeColor(c.metric)} strokeDasharray="4 3"
                  label={<ChangeMark change={c} />} />
              ))}
            </LineChart>
          </ResponsiveContainer>
        </div>
        {changes.length > 0 && (
          <ul className="trend-changes" aria-label="Latency changes">
            {changes.map((c) => (
              <li key={`${c.metric}-${c.id}`}>
                {c.text.replace(/ from this run$/, '')} ({formatDuration(c.before)} → {formatDuration(c.after)}) from run{' '}
                <Link to={`/runs/${c.id}`}>{runName(c)}</Link>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="card" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
        <h3 style={{ margin: 0 }}>Throughput and errors</h3>
        <ChartDownload title="Trend throughput and errors" csv={() => trendCsv(rows, kind)} />
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
          { label: `p50 (${kind})`, value: (r) => formatDuration(r.p50), num: true },
          { label: `p99 (${kind})`, value: (r) => formatDuration(r.p99), num: true },
          { label: 'QPS', value: (r) => formatRate(r.qps), num: true },
          { label: 'Errors', value: (r) => formatCount(r.errors), num: true },
        ]}
      />
    </div>
  );
}

/** trendCsv is the trend charts' series, a row per run: what both charts draw. */
function trendCsv(rows: readonly TrendRow[], kind: LatencyKind) {
  return {
    header: ['run_id', 'run', 'started', `p50_${kind}_us`, `p99_${kind}_us`, 'qps', 'errors'],
    rows: rows.map((r) => [r.id, r.name, new Date(r.t).toISOString(), r.p50, r.p99, r.qps, r.errors]),
  };
}

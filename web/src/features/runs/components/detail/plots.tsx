// The Recharts drawing of the run page's charts, in a chunk of its own with
// Recharts (plots-code.ts): the page's first screen draws none of them, so it
// neither loads nor runs this code. Each card (qps-chart.tsx and the others)
// keeps its heading, toggles, legend and table view, and hands this its rows.
import { Area, Bar, BarChart, CartesianGrid, ComposedChart, Line, LineChart, ReferenceArea, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from 'recharts';
import { axisProps, gridProps, liveAxisProps, liveGridProps, tooltipLabelStyle, tooltipStyle } from '@/components/ui/chart-style';
import { formatCount, formatDuration } from '@/lib/format';
import { clock, timeTicks } from '../../utils/chart-axis';
import type { SecondSpan } from '../../utils/series';
import type { TimelinePoint } from '../../utils/timeline';
import { secondsAxes } from './seconds-axes';

const margin = { top: 8, right: 12, bottom: 0, left: 0 };

/** SecondsLine is one line of a SecondsPlot: the rows' key, its name in the tooltip, its stroke. */
export interface SecondsLine {
  key: string;
  name: string;
  color: string;
  /** width is the stroke's width in px (default 1). */
  width?: number;
  dash?: string;
  className?: string;
  /** under draws the line beneath the shaded seconds; the others are drawn over them. */
  under?: boolean;
}

interface SecondsPlotProps {
  rows: readonly object[];
  domain: [number, number];
  /** format shows a value on the y axis and in the tooltip; width is the y axis' in px. */
  format: (v: number) => string;
  width?: number;
  lines: readonly SecondsLine[];
  /** shaded are spans of seconds shaded in the warning colour (the rate chart's generator-limited ones). */
  shaded?: readonly SecondSpan[];
}

/** SecondsPlot draws lines over a run's seconds: the rate, latency, iterations and per-agent charts. */
export function SecondsPlot({ rows, domain, format, width, lines, shaded = [] }: SecondsPlotProps) {
  const line = (l: SecondsLine) => (
    <Line
      key={l.key}
      dataKey={l.key}
      name={l.name}
      stroke={l.color}
      strokeWidth={l.width}
      strokeDasharray={l.dash}
      className={l.className}
      dot={false}
      isAnimationActive={false}
      type="linear"
    />
  );
  return (
    <ResponsiveContainer width="100%" height="100%">
      <LineChart data={rows} margin={margin}>
        {secondsAxes(domain, { format, width })}
        {lines.filter((l) => l.under).map(line)}
        {shaded.map((sp) => (
          // A second s covers [s, s+1) of the time axis.
          <ReferenceArea key={sp.from} x1={sp.from} x2={sp.to + 1} fill="var(--warn)" fillOpacity={0.18} ifOverflow="hidden" />
        ))}
        {lines.filter((l) => !l.under).map(line)}
      </LineChart>
    </ResponsiveContainer>
  );
}

/** CodeSeries is one code's area in a CodesPlot; ok codes are drawn lighter than failures. */
export interface CodeSeries {
  key: string;
  name: string;
  color: string;
  ok: boolean;
}

/** CodesPlot stacks results per second by code, with the errors line over them. */
export function CodesPlot({ rows, domain, series }: { rows: readonly object[]; domain: [number, number]; series: readonly CodeSeries[] }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <ComposedChart data={rows} margin={margin}>
        <CartesianGrid {...liveGridProps} />
        <XAxis dataKey="t" type="number" domain={domain} ticks={timeTicks(domain)} tickFormatter={clock} {...liveAxisProps} interval="preserveStartEnd" />
        <YAxis tickFormatter={(v: number) => formatCount(v)} width={52} {...liveAxisProps} allowDecimals={false} />
        <Tooltip
          contentStyle={tooltipStyle}
          labelStyle={tooltipLabelStyle}
          labelFormatter={(t) => `at ${clock(Number(t))}`}
          formatter={(v) => `${formatCount(Number(v))}/s`}
          isAnimationActive={false}
        />
        {series.map((c) => (
          <Area
            key={c.key}
            dataKey={c.key}
            name={c.name}
            stackId="codes"
            stroke={c.color}
            fill={c.color}
            fillOpacity={c.ok ? 0.15 : 0.55}
            strokeWidth={c.ok ? 1 : 1.5}
            isAnimationActive={false}
            type="linear"
          />
        ))}
        <Line dataKey="errors" name="errors" stroke="var(--text)" strokeDasharray="4 3" dot={false} isAnimationActive={false} type="linear" />
      </ComposedChart>
    </ResponsiveContainer>
  );
}

interface TimelinePlotProps {
  ok: readonly TimelinePoint[];
  errors: readonly TimelinePoint[];
  domain: [number, number];
  okColor: string;
  errorColor: string;
  /** size draws the chart at a fixed size instead of filling its box (tests, where nothing has a size). */
  size?: { width: number; height: number };
}

/** TimelinePlot draws sampled requests at their send time and latency, errors as crosses. */
export function TimelinePlot({ ok, errors, domain, okColor, errorColor, size }: TimelinePlotProps) {
  const chart = (
    <ScatterChart width={size?.width} height={size?.height} margin={margin}>
      <CartesianGrid {...gridProps} />
      <XAxis dataKey="x" type="number" name="sent" domain={domain} ticks={timeTicks(domain)} tickFormatter={clock} {...axisProps} />
      <YAxis dataKey="y" type="number" name="latency" tickFormatter={(v: number) => (v === 0 ? '0' : formatDuration(v))} width={64} {...axisProps} />
      <Tooltip
        contentStyle={tooltipStyle}
        labelStyle={tooltipLabelStyle}
        formatter={(v, name) => (name === 'latency' ? formatDuration(Number(v)) : `${Number(v).toFixed(3)} s`)}
        isAnimationActive={false}
      />
      <Scatter name="ok" data={ok} fill={okColor} fillOpacity={0.5} shape="circle" isAnimationActive={false} />
      <Scatter name="error" data={errors} fill={errorColor} fillOpacity={0.8} shape="cross" isAnimationActive={false} />
    </ScatterChart>
  );
  return size ? chart : <ResponsiveContainer width="100%" height="100%">{chart}</ResponsiveContainer>;
}

/** BucketsPlot draws an imported document's histogram: requests per bucket, the buckets named by range. */
export function BucketsPlot({ rows }: { rows: readonly { range: string; count: number }[] }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={rows} margin={margin}>
        <CartesianGrid {...gridProps} vertical={false} />
        <XAxis dataKey="range" {...axisProps} interval="preserveStartEnd" />
        <YAxis tickFormatter={(v: number) => formatCount(v)} width={52} {...axisProps} />
        <Tooltip
          contentStyle={tooltipStyle}
          labelStyle={tooltipLabelStyle}
          formatter={(v) => [formatCount(Number(v)), 'requests']}
          isAnimationActive={false}
        />
        <Bar dataKey="count" name="requests" fill="var(--chart-2)" fillOpacity={0.8} isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}

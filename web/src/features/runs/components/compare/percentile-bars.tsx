import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useRef } from 'react';
import { axisProps, gridProps, legendStyle, legendText, tooltipStyle } from '@/components/ui/chart-style';
import { formatDuration, formatRate } from '@/lib/format';
import { latencyMetrics, type BarRow } from '../../utils/metrics';
import { tickLayout, truncate } from '../../utils/ticks';
import { useWidth } from './use-width';

/**
 * Bars of one hue, lighter to darker from min to max, so the order of the
 * figures reads at a glance; qps stands apart in the first chart colour.
 */
const shades = [42, 50, 58, 66, 74, 82, 91, 100];
const barFill = (i: number) => `color-mix(in srgb, var(--chart-2) ${shades[i]}%, var(--panel))`;

const order = latencyMetrics.map((m) => m.key as string);

/** The width the two y axes and margins take from the plot. */
const axesPx = 64 + 56 + 16;

/** PercentileBars is Fortio's N-run view: grouped latency bars per run, qps on the right axis. */
export function PercentileBars({ rows }: { rows: BarRow[] }) {
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const ticks = tickLayout(Math.max(0, width - axesPx), rows.length);
  const slanted = ticks.angle !== 0;
  return (
    <div className="chart tall" data-testid="compare-bars" ref={box}>
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid {...gridProps} vertical={false} />
          <XAxis
            dataKey="name"
            {...axisProps}
            interval={0}
            tickFormatter={(v: string) => truncate(v, ticks.chars)}
            angle={ticks.angle}
            textAnchor={slanted ? 'end' : 'middle'}
            height={ticks.height}
          />
          <YAxis yAxisId="lat" {...axisProps} tickFormatter={(v: number) => formatDuration(v)} width={64} />
          {/* The qps axis takes the qps line's colour, so which axis is whose reads without a title. */}
          <YAxis yAxisId="qps" orientation="right" {...axisProps} tick={{ fill: 'var(--chart-1)', fontSize: 12 }}
            tickFormatter={(v: number) => `${formatRate(v)}/s`} width={56} />
          <Tooltip
            contentStyle={tooltipStyle}
            itemStyle={{ color: 'var(--text)' }}
            cursor={{ fill: 'var(--grid)', opacity: 0.4 }}
            itemSorter={(item) => (item.dataKey === 'qps' ? order.length : order.indexOf(String(item.dataKey)))}
            formatter={(v, name) => [name === 'qps' ? `${formatRate(Number(v))}/s` : formatDuration(Number(v)), name]}
          />
          <Legend wrapperStyle={legendStyle} itemSorter={null} formatter={legendText} />
          {latencyMetrics.map((m, i) => (
            <Bar key={m.key} yAxisId="lat" dataKey={m.key} name={m.label} fill={barFill(i)} isAnimationActive={false} />
          ))}
          <Line yAxisId="qps" dataKey="qps" name="qps" stroke="var(--chart-1)" strokeWidth={2}
            dot={{ r: 4, fill: 'var(--chart-1)' }} isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}

// The Recharts drawing of the percentile spectrum, in a chunk of its own with
// Recharts (spectrum-chart.tsx loads it): the run page's first screen draws no
// spectrum, so it neither loads nor runs this code.
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { liveAxisProps, liveGridProps, tooltipLabelStyle, tooltipStyle } from '@/components/ui/chart-style';
import { formatDuration } from '@/lib/format';
import type { LatencyKind } from '../../utils/series';
import { percentileLabel, percentileTicks, type SpectrumRow } from '../../utils/spectrum';

interface Props {
  rows: readonly SpectrumRow[];
  /** series are the lines' names and colours, drawing rows' s0, s1, …; one line is named by kind. */
  series: readonly { name: string; color: string }[];
  kind: LatencyKind;
}

/** SpectrumPlot draws latency against percentile on a logarithmic 1/(1−p) axis, a line a series. */
export function SpectrumPlot({ rows, series, kind }: Props) {
  const xMax = rows[rows.length - 1]?.x ?? 2;
  const one = series.length === 1;
  return (
    <ResponsiveContainer width="100%" height="100%">
      <LineChart data={rows} margin={{ top: 8, right: 28, bottom: 20, left: 16 }}>
        <CartesianGrid {...liveGridProps} />
        <XAxis dataKey="x" type="number" scale="log" domain={[2, Math.max(xMax, 10)]} allowDataOverflow
          ticks={percentileTicks(xMax)} tickFormatter={(v: number) => percentileLabel(v)} {...liveAxisProps}
          label={{ value: 'percentile', position: 'insideBottom', offset: -12, fill: 'var(--muted)', fontSize: 12 }} />
        <YAxis domain={[0, 'auto']} tickFormatter={(v: number) => formatDuration(v)} width={64} {...liveAxisProps}
          label={{ value: `${kind} time`, angle: -90, position: 'insideLeft', offset: -8, fill: 'var(--muted)', fontSize: 12, style: { textAnchor: 'middle' } }} />
        {series.map((s, i) => (
          <Line key={i} dataKey={`s${i}`} name={one ? `${kind} time` : s.name} stroke={s.color} strokeWidth={2}
            dot={{ r: 3 }} connectNulls isAnimationActive={false} type="linear" />
        ))}
        <Tooltip contentStyle={tooltipStyle} labelStyle={tooltipLabelStyle} isAnimationActive={false}
          labelFormatter={(_v, payload) => {
            const r = payload[0]?.payload as SpectrumRow | undefined;
            return r?.label === 'max' ? `max (p${(r.p * 100).toPrecision(6)})` : (r?.label ?? '');
          }}
          formatter={(v) => formatDuration(Number(v))} />
      </LineChart>
    </ResponsiveContainer>
  );
}

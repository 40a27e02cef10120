import { useId, useState } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { liveAxisProps, liveGridProps, tooltipLabelStyle, tooltipStyle } from '@/components/ui/chart-style';
import type { Schemas } from '@/lib/api-client';
import { formatCount, formatDuration } from '@/lib/format';
import { percentileLabel, percentileTicks, spectrumPoints } from '../../utils/spectrum';

type Kind = 'response' | 'service' | 'lag';
const kinds: Kind[] = ['response', 'service', 'lag'];
const kindLabel: Record<Kind, string> = { response: 'Response', service: 'Service', lag: 'Lag' };

/**
 * PercentileSpectrum plots a latency against its percentile on a
 * logarithmic 1/(1−p) axis, HdrHistogram's view, where p99 and p99.9 get as
 * much room as p50. A toggle picks response time, service time or lag, and a
 * table under it holds the same points for screen readers.
 */
export function PercentileSpectrum({ result }: { result: Schemas['RunResult'] }) {
  const available = kinds.filter((k) => result[k] !== undefined);
  const [kind, setKind] = useState<Kind>(result.primary);
  const shown = available.includes(kind) ? kind : (available[0] ?? 'service');
  const summary = result[shown];
  const points = spectrumPoints(summary);
  const id = useId();
  const xMax = points[points.length - 1]?.x ?? 2;
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <div className="run-chart-head">
        <h2 id={`${id}-title`}>Percentile spectrum</h2>
        <div role="radiogroup" aria-label="Latency of the spectrum" className="row">
          {available.map((k) => (
            <label key={k} className="check">
              <input type="radio" name={`${id}-kind`} value={k} checked={shown === k} onChange={() => setKind(k)} />
              {kindLabel[k]}
            </label>
          ))}
        </div>
      </div>
      {points.length < 2 ? (
        <div className="run-chart-empty">Too few requests for a spectrum.</div>
      ) : (
        <div className="chart" style={{ height: 300 }}>
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={points} margin={{ top: 8, right: 12, bottom: 20, left: 16 }}>
              <CartesianGrid {...liveGridProps} />
              <XAxis dataKey="x" type="number" scale="log" domain={[2, Math.max(xMax, 10)]} allowDataOverflow
                ticks={percentileTicks(xMax)} tickFormatter={(v: number) => percentileLabel(v)} {...liveAxisProps}
                label={{ value: 'percentile', position: 'insideBottom', offset: -12, fill: 'var(--muted)', fontSize: 12 }} />
              <YAxis dataKey="us" domain={[0, 'auto']} tickFormatter={(v: number) => formatDuration(v)} width={64} {...liveAxisProps}
                label={{ value: `${shown} time`, angle: -90, position: 'insideLeft', offset: -8, fill: 'var(--muted)', fontSize: 12, style: { textAnchor: 'middle' } }} />
              <Line dataKey="us" name={`${shown} time`} stroke="var(--chart-1)" strokeWidth={2} dot={{ r: 3 }} isAnimationActive={false} type="linear" />
              <Tooltip contentStyle={tooltipStyle} labelStyle={tooltipLabelStyle} isAnimationActive={false}
                labelFormatter={(_v, payload) => {
                  const p = payload[0]?.payload as { label?: string; p?: number } | undefined;
                  return p?.label === 'max' ? `max (p${((p.p ?? 0) * 100).toPrecision(6)})` : (p?.label ?? '');
                }}
                formatter={(v) => formatDuration(Number(v))} />
            </LineChart>
          </ResponsiveContainer>
        </div>
      )}
      <table className="sr-only" aria-label="Percentile spectrum values">
        <caption>
          {shown} time by percentile over {formatCount(summary?.count)} requests
        </caption>
        <thead>
          <tr>
            <th>Percentile</th>
            <th>Latency</th>
          </tr>
        </thead>
        <tbody>
          {points.map((p) => (
            <tr key={p.label}>
              <td>{p.label}</td>
              <td>{formatDuration(p.us)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

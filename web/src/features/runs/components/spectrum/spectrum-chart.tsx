import { useId, useMemo, type ReactNode } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { liveAxisProps, liveGridProps, tooltipLabelStyle, tooltipStyle } from '@/components/ui/chart-style';
import { formatDuration } from '@/lib/format';
import type { LatencyKind } from '../../utils/series';
import { overlayRows, percentileLabel, percentileTicks, spectrumTable, type SpectrumPoint, type SpectrumRow } from '../../utils/spectrum';
import { ChartLegend } from '../detail/chart-legend';
import '../detail/run.css';
import { ChartArea } from '@/components/ui/chart-area';

/** The latencies a spectrum can show, in the toggle's order. */
export const spectrumKinds: readonly LatencyKind[] = ['response', 'service', 'lag'];
const kindLabel: Record<LatencyKind, string> = { response: 'Response', service: 'Service', lag: 'Lag' };

/** SpectrumSeries is one line of the chart: a run's percentiles of the shown latency. */
export interface SpectrumSeries {
  name: string;
  color: string;
  points: SpectrumPoint[];
}

interface Props {
  kind: LatencyKind;
  /** kinds are the latencies the toggle offers: those the data has. */
  kinds: readonly LatencyKind[];
  onKindChange: (kind: LatencyKind) => void;
  series: readonly SpectrumSeries[];
  /** note says what the chart leaves out (a run without that latency, too few requests). */
  note?: ReactNode;
}

/**
 * SpectrumChart plots latency against percentile on a logarithmic 1/(1−p)
 * axis, HdrHistogram's view, where p99 and p99.9 get as much room as p50:
 * one line per series, so the run page draws one run and the compare page
 * overlays any number in their own hues. A toggle picks response time,
 * service time or lag, and the Table view holds the same points.
 */
export function SpectrumChart({ kind, kinds, onKindChange, series, note }: Props) {
  const id = useId();
  const pointsOf = useMemo(() => series.map((s) => s.points), [series]);
  const rows = useMemo(() => overlayRows(pointsOf), [pointsOf]);
  const table = useMemo(() => spectrumTable(pointsOf), [pointsOf]);
  const xMax = rows[rows.length - 1]?.x ?? 2;
  const drawn = series.filter((s) => s.points.length >= 2).length;
  const one = series.length === 1;
  return (
    <section className="card" aria-labelledby={`${id}-title`} data-testid="spectrum">
      <div className="run-chart-head">
        <h2 id={`${id}-title`}>Percentile spectrum</h2>
        <div role="radiogroup" aria-label="Latency of the spectrum" className="row">
          {kinds.map((k) => (
            <label key={k} className="check">
              <input type="radio" name={`${id}-kind`} value={k} checked={kind === k} onChange={() => onKindChange(k)} />
              {kindLabel[k]}
            </label>
          ))}
        </div>
        {drawn > 0 && (
          <ChartDownload
            title={`Percentile spectrum, ${kind} time`}
            csv={() => ({
              header: ['percentile', ...series.map((s) => `${one ? '' : `${s.name} `}${kind} time (µs)`)],
              rows: table.map((r) => [r.label, ...r.values]),
            })}
          />
        )}
      </div>
      {drawn === 0 ? (
        <div className="run-chart-empty">Too few requests for a spectrum.</div>
      ) : (
        <ChartArea style={{ height: 300 }}>
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
        </ChartArea>
      )}
      {!one && <ChartLegend items={series.map((s) => ({ label: s.name, color: s.color }))} />}
      {note && <p className="run-chart-note" style={{ margin: '4px 0 0' }}>{note}</p>}
      <ChartTable
        title={`Percentile spectrum, ${kind} time`}
        rows={table}
        rowKey={(r) => r.label}
        columns={[
          { label: 'Percentile', value: (r) => r.label },
          ...series.map((s, i) => ({
            label: one ? `${kind} time` : s.name,
            value: (r: (typeof table)[number]) => (r.values[i] === undefined ? '—' : formatDuration(r.values[i])),
            num: true,
          })),
        ]}
      />
    </section>
  );
}

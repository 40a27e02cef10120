import { useId, useMemo, type ReactNode } from 'react';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { chartCode } from '@/components/ui/chart-code';
import { formatDuration } from '@/lib/format';
import type { LatencyKind } from '../../utils/series';
import { overlayRows, spectrumTable, type SpectrumPoint } from '../../utils/spectrum';
import { ChartLegend } from '../detail/chart-legend';
import '../detail/run.css';
import { ChartArea } from '@/components/ui/chart-area';

/** The latencies a spectrum can show, in the toggle's order. */
export const spectrumKinds: readonly LatencyKind[] = ['response', 'service', 'lag'];
const kindLabel: Record<LatencyKind, string> = { response: 'Response', service: 'Service', lag: 'Lag' };
/** plot is the code the spectrum is drawn with (spectrum-plot.tsx and Recharts), loaded apart from the page. */
const plot = chartCode(() => import('./spectrum-plot'));

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
        <ChartArea style={{ height: 300 }} code={plot}>
          {(p) => <p.SpectrumPlot rows={rows} series={series} kind={kind} />}
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

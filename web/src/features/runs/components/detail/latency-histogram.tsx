import { useMemo } from 'react';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { ErrorState, Loading } from '@/components/ui/states';
import { formatCount, formatDuration } from '@/lib/format';
import { useRunFortioHistogram } from '../../api/get-run-fortio-result';
import { histogramRows } from '../../utils/histogram';
import { useViewParam } from '../../hooks/use-view-param';
import { viewParams } from '../../utils/view-params';
import { ChartArea } from '@/components/ui/chart-area';
import { HistogramPlot } from './histogram-plot';

const histogramAxes = ['auto', 'log', 'linear'] as const;

interface Props {
  runId: string;
  primary: 'response' | 'service';
}

/**
 * LatencyHistogram draws the run's latency distribution (from its Fortio
 * view) as densities, requests per ms of each bucket's width, so wide
 * buckets do not tower over narrow ones, and the cumulative share.
 */
export function LatencyHistogram({ runId, primary }: Props) {
  const hist = useRunFortioHistogram(runId, true);
  // Auto until the viewer chooses (kept in the URL): then log when the buckets span over two decades.
  const [axis, setAxis] = useViewParam(viewParams.histogram, histogramAxes, 'auto');
  const logChoice = axis === 'auto' ? undefined : axis === 'log';
  const rows = useMemo(() => (hist.data ? histogramRows(hist.data) : []), [hist.data]);
  const lo = rows[0]?.startUs ?? 0;
  const hi = rows[rows.length - 1]?.endUs ?? 0;
  const log = logChoice ?? (lo > 0 && hi / lo > 100);

  let body;
  if (hist.isPending) body = <Loading label="Loading histogram…" />;
  else if (hist.error) body = <ErrorState error={hist.error} retry={() => hist.refetch()} />;
  else if (rows.length === 0) body = <div className="run-chart-empty">No latencies recorded.</div>;
  else {
    body = (
      <ChartArea style={{ height: 320 }}>
        <HistogramPlot rows={rows} log={log} kind={primary} height={320} />
      </ChartArea>
    );
  }
  const table = rows.length > 0 && (
    <ChartTable
      title={`Latency histogram, ${primary} time`}
      rows={rows}
      rowKey={(r) => r.startUs}
      columns={[
        { label: 'From', value: (r) => formatDuration(r.startUs), num: true },
        { label: 'To', value: (r) => formatDuration(r.endUs), num: true },
        { label: 'Requests', value: (r) => formatCount(r.count), num: true },
        { label: 'Requests per ms', value: (r) => r.density.toPrecision(3), num: true },
        { label: 'Cumulative', value: (r) => `${r.cumulative.toFixed(2)}%`, num: true },
      ]}
    />
  );

  return (
    <section className="card" aria-label="Latency histogram">
      <div className="run-chart-head">
        <h2>Latency histogram</h2>
        <span className="row">
          <span className="run-chart-note">{primary} time</span>
          <label className="check">
            <input type="checkbox" checked={log} onChange={(e) => setAxis(e.target.checked ? 'log' : 'linear')} /> log x
          </label>
          {rows.length > 0 && (
            <ChartDownload
              title={`Latency histogram, ${primary} time`}
              csv={() => ({
                header: ['start_us', 'end_us', 'count', 'per_ms', 'cumulative_percent'],
                rows: rows.map((r) => [r.startUs, r.endUs, r.count, r.density, r.cumulative]),
              })}
            />
          )}
        </span>
      </div>
      {body}
      {table}
    </section>
  );
}

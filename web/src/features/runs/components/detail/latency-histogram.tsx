import { useMemo } from 'react';
import {
  CartesianGrid,
  ComposedChart,
  Line,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  useXAxisScale,
  useYAxisScale,
} from 'recharts';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { liveAxisProps, liveGridProps, tooltipLabelStyle, tooltipStyle } from '@/components/ui/chart-style';
import { ErrorState, Loading } from '@/components/ui/states';
import { formatCount, formatDuration } from '@/lib/format';
import { useRunFortioHistogram } from '../../api/get-run-fortio-result';
import { histogramRows, linearTicks, logTicks, type HistogramRow } from '../../utils/histogram';
import { useViewParam } from '../../hooks/use-view-param';
import { viewParams } from '../../utils/view-params';
import { ChartArea } from '@/components/ui/chart-area';

/**
 * Bars draws each bucket from its start to its end on the x axis: buckets
 * differ in width, which a category bar chart would hide.
 */
function Bars({ rows }: { rows: readonly HistogramRow[] }) {
  const x = useXAxisScale();
  const y = useYAxisScale('density');
  if (!x || !y) return null;
  const base = y(0) ?? 0;
  return (
    <g className="run-histogram-bars">
      {rows.map((r) => {
        const x0 = x(r.startUs);
        const x1 = x(r.endUs);
        const top = y(r.density);
        if (x0 === undefined || x1 === undefined || top === undefined) return null;
        const w = Math.max(1, x1 - x0 - (x1 - x0 > 3 ? 1 : 0));
        return <rect key={r.startUs} x={x0} y={top} width={w} height={Math.max(0, base - top)} fill="var(--chart-2)" fillOpacity={0.7} />;
      })}
    </g>
  );
}

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
  // The line and the tooltip read points at each bucket's end; the first point opens the line at 0%.
  const points = useMemo(
    () =>
      rows.length
        ? [{ x: rows[0]!.startUs, cumulative: 0, density: undefined, count: undefined }, ...rows.map((r) => ({ x: r.endUs, cumulative: r.cumulative, density: r.density, count: r.count }))]
        : [],
    [rows],
  );

  const lo = rows[0]?.startUs ?? 0;
  const hi = rows[rows.length - 1]?.endUs ?? 0;
  const log = logChoice ?? (lo > 0 && hi / lo > 100);

  let body;
  if (hist.isPending) body = <Loading label="Loading histogram…" />;
  else if (hist.error) body = <ErrorState error={hist.error} retry={() => hist.refetch()} />;
  else if (rows.length === 0) body = <div className="run-chart-empty">No latencies recorded.</div>;
  else {
    const maxDensity = Math.max(...rows.map((r) => r.density));
    body = (
      <ChartArea style={{ height: 320 }}>
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={points} margin={{ top: 8, right: 8, bottom: 20, left: 16 }}>
            <CartesianGrid {...liveGridProps} />
            <XAxis
              dataKey="x"
              type="number"
              scale={log ? 'log' : 'linear'}
              domain={log ? [lo, hi] : [0, hi]}
              allowDataOverflow
              ticks={log ? logTicks(lo, hi, 6) : linearTicks(hi)}
              tickFormatter={(v: number) => formatDuration(v)}
              {...liveAxisProps}
              interval="preserveStartEnd"
              label={{ value: `${primary} time`, position: 'insideBottom', offset: -12, fill: 'var(--muted)', fontSize: 12 }}
            />
            <YAxis yAxisId="density" domain={[0, maxDensity]} allowDataOverflow tickFormatter={(v: number) => formatCount(v)} width={56} {...liveAxisProps}
              label={{ value: 'requests per ms', angle: -90, position: 'insideLeft', offset: -8, fill: 'var(--muted)', fontSize: 12, style: { textAnchor: 'middle' } }} />
            <YAxis yAxisId="pct" orientation="right" domain={[0, 100]} ticks={[0, 25, 50, 75, 100]} tickFormatter={(v: number) => `${v}%`} width={52} {...liveAxisProps}
              label={{ value: 'cumulative', angle: 90, position: 'insideRight', offset: 0, fill: 'var(--muted)', fontSize: 12, style: { textAnchor: 'middle' } }} />
            <Bars rows={rows} />
            <Line
              yAxisId="pct"
              dataKey="cumulative"
              name="cumulative"
              stroke="var(--chart-1)"
              strokeWidth={2}
              dot={false}
              isAnimationActive={false}
              type="linear"
            />
            <Line yAxisId="density" dataKey="density" name="requests per ms" stroke="none" dot={false} activeDot={false} isAnimationActive={false} legendType="none" />
            <Line yAxisId="density" dataKey="count" name="requests in bucket" stroke="none" dot={false} activeDot={false} isAnimationActive={false} legendType="none" />
            <Tooltip
              contentStyle={tooltipStyle}
              labelStyle={tooltipLabelStyle}
              labelFormatter={(v) => `≤ ${formatDuration(Number(v))}`}
              formatter={(v, name) =>
                name === 'cumulative' ? `${Number(v).toFixed(2)}%` : name === 'requests per ms' ? Number(v).toPrecision(3) : formatCount(Number(v))}
              isAnimationActive={false}
            />
          </ComposedChart>
        </ResponsiveContainer>
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

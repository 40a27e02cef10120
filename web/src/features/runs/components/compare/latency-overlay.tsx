import { useQueries } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { axisProps, gridProps, legendStyle, legendText, tooltipStyle } from '@/components/ui/chart-style';
import { ErrorState, Loading } from '@/components/ui/states';
import { formatDuration } from '@/lib/format';
import { runFortioHistogramQuery } from '../../api/get-run-fortio-result';
import { cumulativeSeries, logDomain, overlayCumulative } from '../../utils/cumulative';
import { logTicks } from '../../utils/histogram';
import { runColor } from '../../utils/compared-runs';

type Props = { runs: { id: string; name: string; hasResult: boolean }[] };

/** LatencyOverlay draws each run's latency distribution as cumulative percent. */
export function LatencyOverlay({ runs }: Props) {
  const [log, setLog] = useState(false);
  const logId = useId();
  const results = useQueries({ queries: runs.map((r) => runFortioHistogramQuery(r.id, r.hasResult)) });
  // At most ~70 buckets per run: cheap enough to reshape on every render.
  const lines = results.map((q) => (q.data ? cumulativeSeries(q.data.buckets) : []));
  const rows = overlayCumulative(lines);

  const failed = results.find((q) => q.error);
  const pending = results.some((q, i) => runs[i]!.hasResult && q.isPending);
  const xs = rows.map((r) => r.x);
  const [lo, hi] = logDomain(Math.min(...xs), Math.max(...xs));

  return (
    <section className="card stack" aria-labelledby={`${logId}-h`} style={{ gap: 8 }}>
      <div className="spread">
        <h2 id={`${logId}-h`} style={{ margin: 0 }}>
          Latency distribution
        </h2>
        <label className="check" htmlFor={logId}>
          <input id={logId} type="checkbox" checked={log} onChange={(e) => setLog(e.target.checked)} /> Log scale
        </label>
      </div>
      <p className="muted" style={{ margin: 0, fontSize: '0.85rem' }}>
        Share of requests at or under each latency, from the runs' histograms.
      </p>
      {failed ? (
        <ErrorState error={failed.error} retry={() => failed.refetch()} />
      ) : pending ? (
        <Loading />
      ) : rows.length === 0 ? (
        <div className="state">No histogram to draw yet.</div>
      ) : (
        <div className="chart">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
              <CartesianGrid {...gridProps} />
              <XAxis
                dataKey="x"
                type="number"
                {...axisProps}
                scale={log ? 'log' : 'linear'}
                domain={log ? [lo, hi] : [0, 'auto']}
                ticks={log ? logTicks(lo, hi) : undefined}
                allowDataOverflow
                tickFormatter={(v: number) => formatDuration(v)}
              />
              <YAxis {...axisProps} domain={[0, 100]} ticks={[0, 25, 50, 75, 90, 100]} tickFormatter={(v: number) => `${v}%`} width={44} />
              <Tooltip
                contentStyle={tooltipStyle}
                itemSorter="dataKey"
                labelFormatter={(v) => `≤ ${formatDuration(Number(v))}`}
                formatter={(v, name) => [`${Number(v).toFixed(1)}%`, name]}
              />
              <Legend wrapperStyle={legendStyle} itemSorter={null} formatter={legendText} />
              {runs.map((r, i) =>
                lines[i]!.length > 0 ? (
                  <Line key={r.id} dataKey={`r${i}`} name={r.name} stroke={runColor(i)} strokeWidth={2} dot={false}
                    type="linear" isAnimationActive={false} />
                ) : null,
              )}
            </LineChart>
          </ResponsiveContainer>
        </div>
      )}
    </section>
  );
}

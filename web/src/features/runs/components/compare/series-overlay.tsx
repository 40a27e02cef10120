import { useQueries } from '@tanstack/react-query';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { axisProps, gridProps, legendStyle, legendText, tooltipStyle } from '@/components/ui/chart-style';
import { ErrorState, Loading } from '@/components/ui/states';
import { formatDuration, formatRate, formatSeconds } from '@/lib/format';
import { runQuery } from '../../api/get-run';
import { runIntervalsQuery } from '../../api/list-run-intervals';
import { runColor } from '../../utils/compared-runs';
import { headlineLatency, overlayRows, type SeriesRow } from '../../utils/overlay-series';

/** At most this many pages of seconds (about 5.5 hours): enough for an overlay. */
const overlayMaxPages = 20;

type Props = { runs: { id: string; name: string; active: boolean }[] };

/** SeriesOverlay lays the runs' per-second qps and p99 over each other, x = seconds since each start. */
export function SeriesOverlay({ runs }: Props) {
  // A run still going grows its series: read it again while it runs.
  const live = (active: boolean) => (active ? 3_000 : false);
  const details = useQueries({ queries: runs.map((r) => ({ ...runQuery(r.id), refetchInterval: live(r.active) })) });
  const intervals = useQueries({ queries: runs.map((r) => ({ ...runIntervalsQuery(r.id, { maxPages: overlayMaxPages }), refetchInterval: live(r.active) })) });
  const all = [...details, ...intervals];
  const failed = all.find((q) => q.error);
  const pending = all.some((q) => q.isPending);

  const specs = details.map((q) => q.data?.spec);
  const series = intervals.map((q) => q.data);
  // A few thousand seconds at most: cheap enough to merge on every render.
  const rows = overlayRows(series.map((ivs, i) => ({ intervals: ivs ?? [], latency: headlineLatency(specs[i]) })));

  if (failed) return <ErrorState error={failed.error} retry={() => failed.refetch()} />;
  if (pending) return <Loading />;

  return (
    <div className="grid-2">
      <SeriesChart title="Requests per second" rows={rows} runs={runs} prefix="qps" format={formatRate} />
      <SeriesChart title="p99 latency per second" rows={rows} runs={runs} prefix="p99_" format={formatDuration} />
    </div>
  );
}

function SeriesChart({ title, rows, runs, prefix, format }: {
  title: string;
  rows: SeriesRow[];
  runs: { id: string; name: string }[];
  prefix: 'qps' | 'p99_';
  format: (v: number) => string;
}) {
  return (
    <section className="card" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
      <h2 style={{ margin: 0 }}>{title}</h2>
      {rows.length === 0 ? (
        <div className="state">No seconds recorded yet.</div>
      ) : (
        <div className="chart">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
              <CartesianGrid {...gridProps} />
              <XAxis dataKey="second" type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} {...axisProps}
                tickFormatter={(v: number) => formatSeconds(v)} />
              <YAxis {...axisProps} tickFormatter={(v: number) => format(v)} width={60} />
              <Tooltip
                contentStyle={tooltipStyle}
                itemSorter="dataKey"
                labelFormatter={(v) => `second ${v}`}
                formatter={(v, name) => [format(Number(v)), name]}
              />
              <Legend wrapperStyle={legendStyle} itemSorter={null} formatter={legendText} />
              {runs.map((r, i) => (
                <Line key={r.id} dataKey={`${prefix}${i}`} name={r.name} stroke={runColor(i)} strokeWidth={2} dot={false}
                  connectNulls isAnimationActive={false} />
              ))}
            </LineChart>
          </ResponsiveContainer>
        </div>
      )}
    </section>
  );
}

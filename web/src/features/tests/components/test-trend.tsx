import { useCallback, useMemo, useState, type CSSProperties } from 'react';
import { Link } from 'react-router';
import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { runName } from '@/lib/run-name';
import { axisProps, gridProps, legendStyle, legendText, tooltipStyle } from '@/components/ui/chart-style';
import type { LatencyKind } from '@/lib/latency-kind';
import { formatCount, formatDuration, formatRate, formatTime } from '@/lib/format';
import { markLabel, previousRow, timeTick, trendDomain, type TrendChange, type TrendLimitLine, type TrendRow } from '../utils/trend';
import { TrendPointMenu } from './trend-point-menu';
import { LimitLabel, TrendPoint, type TrendChart } from './trend-point';
import { VerdictLegend } from './verdict-mark';
import { ChartArea } from '@/components/ui/chart-area';

/** changeColor is the colour of a change's marker: its metric's line, p90 (not charted) neutral. */
function changeColor(metric: TrendChange['metric']): string {
  if (metric === 'p99') return 'var(--chart-1)';
  if (metric === 'p50') return 'var(--chart-2)';
  return 'var(--muted)';
}

/** ChangeMark is a change's marker at the top of its run's line: a triangle whose tooltip says the change. */
function ChangeMark({ viewBox, change }: { viewBox?: { x?: number; y?: number }; change: TrendChange }) {
  const x = viewBox?.x ?? 0;
  const y = viewBox?.y ?? 0;
  return (
    <g className="trend-change" data-testid="trend-change" data-metric={change.metric}>
      <title>{change.text}</title>
      <path d={`M${x - 6},${y} L${x + 6},${y} L${x},${y + 10} Z`} fill={changeColor(change.metric)} />
    </g>
  );
}

/**
 * Where a run's menu is open: at its point on a chart (x, y in the chart's
 * pixels, opening to the left when right and upwards when up), or in the
 * table view.
 */
type Open = { id: string; at: TrendChart | 'table'; x: number; y: number; right?: boolean; up?: boolean };

/** opener finds the point or row that opened a menu, to give it the focus back. */
function opener(o: Open): HTMLElement | SVGElement | null {
  const sel = o.at === 'table' ? `[data-testid="trend-row"][data-run="${o.id}"]` : `[data-testid="trend-point"][data-chart="${o.at}"][data-run="${o.id}"]`;
  return document.querySelector<HTMLElement | SVGElement>(sel);
}

/** DotArgs is what recharts gives a line's dot renderer. */
type DotArgs = { cx?: number; cy?: number; index?: number; payload?: TrendRow };

/**
 * TestTrend follows a test's runs over time: p50/p99, and qps with errors.
 * Each run's point on the p99 and qps lines shows its verdict by shape and
 * colour, and opens a menu (open the run, compare it with the one before)
 * on a click or Enter/Space; so does its row in the table view. The
 * thresholds' fixed limits on the charted metrics are drawn as labelled
 * lines. The runs where a latency's level changed are marked on the
 * latency chart and listed under it.
 */
export function TestTrend({ rows, changes = [], limits = [], kind }: {
  rows: TrendRow[];
  changes?: TrendChange[];
  limits?: TrendLimitLine[];
  kind: LatencyKind;
}) {
  const [open, setOpen] = useState<Open | null>(null);
  const [focus, setFocus] = useState<Record<TrendChart, number>>({ latency: -1, qps: -1 });
  const present = useMemo(() => new Set(rows.map((r) => r.mark)), [rows]);
  // The focus moves once the chart has drawn again: recharts draws its dots anew.
  const close = useCallback((restore: boolean) => {
    setOpen(null);
    if (restore && open) requestAnimationFrame(() => opener(open)?.focus());
  }, [open]);
  if (rows.length === 0) {
    return <div className="state">No finished run of this test yet: run it to start its trend.</div>;
  }
  const domain = trendDomain(rows);
  const tick = timeTick(domain[1] - domain[0]);
  const xAxis = (
    <XAxis dataKey="t" type="number" scale="time" domain={domain} {...axisProps} tickFormatter={tick} minTickGap={24}
      padding={{ left: 16, right: 16 }} />
  );
  const label = (_: unknown, payload: readonly { payload?: TrendRow }[]) => {
    const r = payload[0]?.payload;
    if (!r) return '';
    const here = changes.filter((c) => c.id === r.id).map((c) => c.text);
    return [`${r.name} · ${formatTime(new Date(r.t).toISOString())}`, ...here].join(' · ');
  };
  // The last run is the chart's stop in the tab order until the arrow keys move it.
  const focused = (chart: TrendChart) => (focus[chart] >= 0 && focus[chart] < rows.length ? focus[chart] : rows.length - 1);
  const dot = (chart: TrendChart) => (p: DotArgs) => {
    const { cx, cy, index = 0, payload: r } = p;
    if (cx === undefined || cy === undefined || !r) return <g key={`${chart}-${index}`} />;
    return (
      <TrendPoint key={`${chart}-${r.id}`} chart={chart} row={r} index={index} x={cx} y={cy} kind={kind}
        focusable={index === focused(chart)} expanded={open?.id === r.id && open.at === chart}
        onOpen={(el) => {
          const svg = el.ownerSVGElement;
          setFocus((f) => ({ ...f, [chart]: index }));
          setOpen({ id: r.id, at: chart, x: cx, y: cy, right: svg ? cx > svg.clientWidth / 2 : false, up: svg ? cy > svg.clientHeight / 2 : false });
        }}
        onMove={(step, el) => {
          const next = Math.min(rows.length - 1, Math.max(0, index + step));
          setFocus((f) => ({ ...f, [chart]: next }));
          const svg = el.ownerSVGElement;
          requestAnimationFrame(() => svg?.querySelector<SVGGElement>(`[data-testid="trend-point"][data-index="${next}"]`)?.focus());
        }} />
    );
  };
  const menu = (at: Open['at']) => {
    if (!open || open.at !== at) return null;
    const row = rows.find((r) => r.id === open.id);
    if (!row) return null;
    let style: CSSProperties | undefined;
    if (at !== 'table') {
      style = {
        position: 'absolute', left: open.x, top: open.y + (open.up ? -12 : 12),
        transform: `translate(${open.right ? '-100%' : '0'}, ${open.up ? '-100%' : '0'})`,
      };
    }
    return <TrendPointMenu row={row} previous={previousRow(rows, row.id)} kind={kind} style={style} onClose={close} />;
  };
  const limitLines = (metric: TrendLimitLine['metric'], axis?: string) =>
    limits.filter((l) => l.metric === metric).map((l) => (
      <ReferenceLine key={`${l.metric}-${l.value}`} y={l.value} yAxisId={axis} stroke="var(--bad)" strokeDasharray="6 4"
        ifOverflow="extendDomain" label={<LimitLabel text={l.label} />} />
    ));
  const dots = rows.length < 40;
  return (
    <div className="stack" style={{ gap: 8 }}>
      <VerdictLegend present={present} />
      <div className="grid-2" data-testid="test-trend">
        <section className="card" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
          <h3 style={{ margin: 0 }}>Latency ({kind} time)</h3>
          <ChartDownload title={`Trend latency, ${kind} time`} csv={() => trendCsv(rows, kind)} />
          <ChartArea className="trend-chart">
            <ResponsiveContainer width="100%" height="100%">
              <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
                <CartesianGrid {...gridProps} />
                {xAxis}
                <YAxis {...axisProps} tickFormatter={(v: number) => formatDuration(v)} width={64} />
                <Tooltip contentStyle={tooltipStyle} labelFormatter={label} formatter={(v, name) => [formatDuration(Number(v)), name]} />
                <Legend wrapperStyle={legendStyle} itemSorter={null} formatter={legendText} />
                <Line dataKey="p50" name={`p50 ${kind}`} stroke="var(--chart-2)" strokeWidth={2} dot={dots} isAnimationActive={false} />
                <Line dataKey="p99" name={`p99 ${kind}`} stroke="var(--chart-1)" strokeWidth={2} dot={dot('latency')} activeDot={false}
                  isAnimationActive={false} />
                {limitLines('p50')}
                {limitLines('p99')}
                {changes.map((c) => (
                  <ReferenceLine key={`${c.metric}-${c.id}`} x={c.t} stroke={changeColor(c.metric)} strokeDasharray="4 3"
                    label={<ChangeMark change={c} />} />
                ))}
              </LineChart>
            </ResponsiveContainer>
            {menu('latency')}
          </ChartArea>
          {changes.length > 0 && (
            <ul className="trend-changes" aria-label="Latency changes">
              {changes.map((c) => (
                <li key={`${c.metric}-${c.id}`}>
                  {c.text.replace(/ from this run$/, '')} ({formatDuration(c.before)} → {formatDuration(c.after)}) from run{' '}
                  <Link to={`/runs/${c.id}`}>{runName(c)}</Link>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section className="card" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
          <h3 style={{ margin: 0 }}>Throughput and errors</h3>
          <ChartDownload title="Trend throughput and errors" csv={() => trendCsv(rows, kind)} />
          <ChartArea className="trend-chart">
            <ResponsiveContainer width="100%" height="100%">
              <ComposedChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
                <CartesianGrid {...gridProps} />
                {xAxis}
                <YAxis yAxisId="qps" {...axisProps} tick={{ fill: 'var(--chart-3)', fontSize: 12 }}
                  tickFormatter={(v: number) => `${formatRate(v)}/s`} width={60} />
                <YAxis yAxisId="errors" orientation="right" {...axisProps} tick={{ fill: 'var(--chart-6)', fontSize: 12 }}
                  allowDecimals={false} tickFormatter={(v: number) => formatCount(v)} width={44} />
                <Tooltip
                  contentStyle={tooltipStyle}
                  labelFormatter={label}
                  formatter={(v, name) => [name === 'qps' ? formatRate(Number(v)) : formatCount(Number(v)), name]}
                />
                <Legend wrapperStyle={legendStyle} itemSorter={null} formatter={legendText} />
                <Bar yAxisId="errors" dataKey="errors" name="errors" fill="var(--chart-6)" maxBarSize={14} isAnimationActive={false} />
                <Line yAxisId="qps" dataKey="qps" name="qps" stroke="var(--chart-3)" strokeWidth={2} dot={dot('qps')} activeDot={false}
                  isAnimationActive={false} />
                {limitLines('qps', 'qps')}
              </ComposedChart>
            </ResponsiveContainer>
            {menu('qps')}
          </ChartArea>
        </section>
        <ChartTable
          title="Trend of the test's runs"
          rows={rows}
          rowKey={(r) => r.id}
          columns={[
            {
              label: 'Run',
              value: (r) => (
                <>
                  <button type="button" className="link" aria-haspopup="dialog" aria-expanded={open?.at === 'table' && open.id === r.id}
                    data-testid="trend-row" data-run={r.id}
                    onClick={() => setOpen({ id: r.id, at: 'table', x: 0, y: 0 })}>
                    {r.name}
                  </button>
                  {open?.at === 'table' && open.id === r.id && menu('table')}
                </>
              ),
            },
            { label: 'Started', value: (r) => formatTime(new Date(r.t).toISOString()) },
            { label: 'Verdict', value: (r) => markLabel[r.mark] },
            { label: `p50 (${kind})`, value: (r) => formatDuration(r.p50), num: true },
            { label: `p99 (${kind})`, value: (r) => formatDuration(r.p99), num: true },
            { label: 'QPS', value: (r) => formatRate(r.qps), num: true },
            { label: 'Errors', value: (r) => formatCount(r.errors), num: true },
          ]}
        />
      </div>
    </div>
  );
}

/** trendCsv is the trend charts' series, a row per run: what both charts draw. */
function trendCsv(rows: readonly TrendRow[], kind: LatencyKind) {
  return {
    header: ['run_id', 'run', 'started', `p50_${kind}_us`, `p99_${kind}_us`, 'qps', 'errors'],
    rows: rows.map((r) => [r.id, r.name, new Date(r.t).toISOString(), r.p50, r.p99, r.qps, r.errors]),
  };
}

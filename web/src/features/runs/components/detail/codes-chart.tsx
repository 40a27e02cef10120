import { useMemo } from 'react';
import { Area, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { liveAxisProps, liveGridProps, tooltipLabelStyle, tooltipStyle } from '@/components/ui/chart-style';
import { formatCount } from '@/lib/format';
import { clock, timeTicks } from '../../utils/chart-axis';
import { downsample } from '../../utils/downsample';
import type { Interval } from '../../utils/intervals';
import { codeRows } from '../../utils/series';
import { ChartLegend } from './chart-legend';
import { useViewParam } from '../../hooks/use-view-param';
import { viewParams } from '../../utils/view-params';
import { ChartArea } from '@/components/ui/chart-area';

const codeViews = ['failures', 'all'] as const;

const badColors = ['var(--bad)', 'var(--chart-1)', 'var(--chart-6)', 'var(--chart-4)', 'var(--warn)'];
const okColors = ['var(--ok)', 'var(--chart-5)', 'var(--chart-2)'];

const codeName = (code: string) => (code === '-1' ? 'socket error' : code);

interface Props {
  intervals: readonly Interval[];
  domain: [number, number];
}

/** CodesChart stacks results per second by code, failures in strong colours, with the errors line. */
export function CodesChart({ intervals, domain }: Props) {
  const [shownCodes, setShownCodes] = useViewParam(viewParams.codes, codeViews, 'failures');
  const withOk = shownCodes === 'all';
  const { rows, codes } = useMemo(() => {
    const shaped = codeRows(intervals);
    const keys = ['errors', ...shaped.codes.map((c) => c.key)];
    let bad = 0;
    let ok = 0;
    const codes = shaped.codes.map((c) => ({
      ...c,
      color: c.ok ? okColors[ok++ % okColors.length]! : badColors[bad++ % badColors.length]!,
    }));
    return { rows: downsample(shaped.rows, keys), codes };
  }, [intervals]);
  const shown = codes.filter((c) => withOk || !c.ok);
  const errors = intervals.reduce((s, iv) => s + iv.errors, 0);
  const empty = shown.length === 0 && errors === 0;

  return (
    <section className="card" aria-label="Results by code per second">
      <div className="run-chart-head">
        <h2>{withOk ? 'Results by code' : 'Errors by code'}</h2>
        <label className="check">
          <input type="checkbox" checked={withOk} onChange={(e) => setShownCodes(e.target.checked ? 'all' : 'failures')} /> include successes
        </label>
        {!empty && (
          <ChartDownload
            title={withOk ? 'Results by code per second' : 'Errors by code per second'}
            csv={() => ({
              header: ['second', 'errors', ...shown.map((c) => `code_${c.code}`)],
              rows: rows.map((r) => [r.t, r.errors, ...shown.map((c) => r[c.key])]),
            })}
          />
        )}
      </div>
      {empty ? (
        <div className="run-chart-empty">{intervals.length === 0 ? 'No seconds yet.' : 'No errors.'}</div>
      ) : (
        <>
          <ChartArea>
            <ResponsiveContainer width="100%" height="100%">
              <ComposedChart data={rows} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
                <CartesianGrid {...liveGridProps} />
                <XAxis dataKey="t" type="number" domain={domain} ticks={timeTicks(domain)} tickFormatter={clock} {...liveAxisProps} interval="preserveStartEnd" />
                <YAxis tickFormatter={(v: number) => formatCount(v)} width={52} {...liveAxisProps} allowDecimals={false} />
                <Tooltip
                  contentStyle={tooltipStyle}
                  labelStyle={tooltipLabelStyle}
                  labelFormatter={(t) => `at ${clock(Number(t))}`}
                  formatter={(v) => `${formatCount(Number(v))}/s`}
                  isAnimationActive={false}
                />
                {shown.map((c) => (
                  <Area
                    key={c.key}
                    dataKey={c.key}
                    name={codeName(c.code)}
                    stackId="codes"
                    stroke={c.color}
                    fill={c.color}
                    fillOpacity={c.ok ? 0.15 : 0.55}
                    strokeWidth={c.ok ? 1 : 1.5}
                    isAnimationActive={false}
                    type="linear"
                  />
                ))}
                <Line dataKey="errors" name="errors" stroke="var(--text)" strokeDasharray="4 3" dot={false} isAnimationActive={false} type="linear" />
              </ComposedChart>
            </ResponsiveContainer>
          </ChartArea>
          <ChartLegend
            items={[
              ...shown.map((c) => ({ label: codeName(c.code), color: c.color, area: true })),
              { label: 'errors', color: 'var(--text)', dashed: true },
            ]}
          />
          <ChartTable
            title={withOk ? 'Results by code per second' : 'Errors by code per second'}
            rows={rows}
            rowKey={(r) => r.t}
            columns={[
              { label: 'Second', value: (r) => clock(r.t) },
              ...shown.map((c) => ({ label: codeName(c.code), value: (r: (typeof rows)[number]) => formatCount(r[c.key]), num: true })),
              { label: 'errors', value: (r) => formatCount(r.errors), num: true },
            ]}
          />
        </>
      )}
    </section>
  );
}

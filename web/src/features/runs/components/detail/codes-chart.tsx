import { useMemo } from 'react';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { formatCount } from '@/lib/format';
import { clock } from '../../utils/chart-axis';
import { downsample } from '../../utils/downsample';
import type { Interval } from '../../utils/intervals';
import { codeRows } from '../../utils/series';
import { ChartLegend } from './chart-legend';
import { useViewParam } from '../../hooks/use-view-param';
import { viewParams } from '../../utils/view-params';
import { ChartArea } from '@/components/ui/chart-area';
import { plots } from './plots-code';

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
          <ChartArea code={plots}>
            {(p) => <p.CodesPlot rows={rows} domain={domain} series={shown.map((c) => ({ key: c.key, name: codeName(c.code), color: c.color, ok: c.ok }))} />}
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

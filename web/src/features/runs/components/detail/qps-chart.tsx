import { useMemo } from 'react';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { formatRate } from '@/lib/format';
import { clock } from '../../utils/chart-axis';
import { downsample } from '../../utils/downsample';
import type { Interval } from '../../utils/intervals';
import { limitedSpans, qpsRows, type SecondSpan } from '../../utils/series';
import { ChartLegend } from './chart-legend';
import { ChartArea } from '@/components/ui/chart-area';
import { plots } from './plots-code';

interface Props {
  intervals: readonly Interval[];
  /** step is the seconds each row spans (seriesStep): 1, or an ended long run's windows. */
  step?: number;
  target?: (second: number) => number;
  domain: [number, number];
}

/** spanText names spans of seconds as clock times: "0:00–0:02, 0:05". */
function spanText(spans: readonly SecondSpan[]): string {
  return spans.map((s) => (s.from === s.to ? clock(s.from) : `${clock(s.from)}–${clock(s.to)}`)).join(', ');
}

/**
 * QpsChart draws achieved qps per second against the requested rate, and shades the seconds in which the
 * load generator was the bottleneck (generator_limited), which a line of text and the table view also name.
 */
export function QpsChart({ intervals, step = 1, target, domain }: Props) {
  const rows = useMemo(() => downsample(qpsRows(intervals, target), ['qps', 'target', 'limited']), [intervals, target]);
  const limited = useMemo(() => limitedSpans(intervals, step), [intervals, step]);
  return (
    <section className="card" aria-label="Requests per second">
      <div className="run-chart-head">
        <h2>Requests per second</h2>
        <span className="run-chart-note">{target ? 'achieved vs target' : 'achieved (no target rate)'}</span>
        <ChartDownload
          title="Requests per second"
          csv={() => ({
            header: ['second', 'achieved_qps', ...(target ? ['target_qps'] : []), 'generator_limited'],
            rows: rows.map((r) => [r.t, r.qps, ...(target ? [r.target] : []), r.limited]),
          })}
        />
      </div>
      <ChartArea testId="live-chart" code={plots}>
        {(p) => (
          <p.SecondsPlot
            rows={rows}
            domain={domain}
            format={formatRate}
            shaded={limited}
            lines={[
              ...(target ? [{ key: 'target', name: 'target', color: 'var(--muted)', dash: '5 4', under: true }] : []),
              { key: 'qps', name: 'achieved', color: 'var(--chart-1)', width: 2 },
            ]}
          />
        )}
      </ChartArea>
      <ChartLegend
        items={[
          { label: 'achieved', color: 'var(--chart-1)' },
          ...(target ? [{ label: 'target', color: 'var(--muted)', dashed: true }] : []),
          ...(limited.length > 0 ? [{ label: 'generator limited', color: 'var(--warn)', area: true }] : []),
        ]}
      />
      {limited.length > 0 && (
        <p className="run-chart-note" data-testid="generator-limited-seconds">
          Generator limited (shaded) at {spanText(limited)}: the load generator, not the target, was the bottleneck.
        </p>
      )}
      <ChartTable
        title="Requests per second"
        rows={rows}
        rowKey={(r) => r.t}
        columns={[
          { label: 'Second', value: (r) => clock(r.t) },
          { label: 'Achieved qps', value: (r) => formatRate(r.qps), num: true },
          ...(target ? [{ label: 'Target qps', value: (r: (typeof rows)[number]) => formatRate(r.target), num: true }] : []),
          ...(limited.length > 0 ? [{ label: 'Generator limited', value: (r: (typeof rows)[number]) => (r.limited ? 'yes' : 'no') }] : []),
        ]}
      />
    </section>
  );
}

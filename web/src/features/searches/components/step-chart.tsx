import { CartesianGrid, ComposedChart, Legend, Line, ReferenceLine, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartTable } from '@/components/ui/chart-table';
import { axisProps, gridProps, legendStyle, legendText, tooltipStyle } from '@/components/ui/chart-style';
import { formatDuration, formatPercent, formatRate } from '@/lib/format';
import type { StepPoint } from '../utils/steps';
import { ChartArea } from '@/components/ui/chart-area';

/**
 * StepChart plots a search's steps by target rate: p50 and p99 response time on
 * the left axis, error rate on the right, failed steps marked, and the best rate
 * found as a vertical line.
 */
export function StepChart({ points, best }: { points: StepPoint[]; best?: number }) {
  if (points.length === 0) {
    return <div className="state">The first step is running; its figures appear when it ends.</div>;
  }
  const failed = points.filter((p) => !p.passed);
  return (
    <>
      <ChartArea testId="search-step-chart">
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid {...gridProps} />
            <XAxis dataKey="qps" type="number" domain={['dataMin', 'dataMax']} {...axisProps}
              tickFormatter={(v: number) => formatRate(v)} padding={{ left: 16, right: 16 }} />
            <YAxis yAxisId="lat" {...axisProps} tickFormatter={(v: number) => formatDuration(v)} width={64} />
            <YAxis yAxisId="err" orientation="right" {...axisProps} tick={{ fill: 'var(--chart-6)', fontSize: 12 }}
              tickFormatter={(v: number) => formatPercent(v)} width={52} />
            <Tooltip
              contentStyle={tooltipStyle}
              labelFormatter={(v) => `${formatRate(Number(v))} qps`}
              formatter={(v, name) => [name === 'error rate' ? formatPercent(Number(v)) : formatDuration(Number(v)), name]}
            />
            <Legend wrapperStyle={legendStyle} itemSorter={null} formatter={legendText} />
            <Line yAxisId="lat" dataKey="p50" name="p50" stroke="var(--chart-2)" strokeWidth={2} isAnimationActive={false} />
            <Line yAxisId="lat" dataKey="p99" name="p99" stroke="var(--chart-1)" strokeWidth={2} isAnimationActive={false} />
            <Line yAxisId="err" dataKey="errorRate" name="error rate" stroke="var(--chart-6)" strokeDasharray="4 3"
              isAnimationActive={false} />
            <Scatter yAxisId="lat" data={failed} dataKey="p99" name="failed step" fill="var(--danger, #d33)" shape="cross"
              isAnimationActive={false} />
            {best !== undefined && (
              <ReferenceLine yAxisId="lat" x={best} stroke="var(--chart-3)" strokeDasharray="3 3"
                label={{ value: `best ${formatRate(best)}`, fill: 'var(--muted)', fontSize: 12, position: 'insideTopLeft' }} />
            )}
          </ComposedChart>
        </ResponsiveContainer>
      </ChartArea>
      <ChartTable
        title="Steps by rate"
        rows={points}
        rowKey={(p) => p.step}
        columns={[
          { label: 'Target qps', value: (p) => formatRate(p.qps), num: true },
          { label: 'p50', value: (p) => formatDuration(p.p50), num: true },
          { label: 'p99', value: (p) => formatDuration(p.p99), num: true },
          { label: 'Error rate', value: (p) => formatPercent(p.errorRate), num: true },
          { label: 'Step', value: (p) => `${p.step} ${p.passed ? 'passed' : 'failed'}` },
        ]}
      />
    </>
  );
}

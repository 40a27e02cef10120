import { CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import { liveAxisProps, liveGridProps, tooltipLabelStyle, tooltipStyle } from '@/components/ui/chart-style';
import { clock, timeTicks } from '../../utils/chart-axis';

interface Options {
  /** format shows a value on the y axis (0 as "0") and in the tooltip. */
  format: (v: number) => string;
  /** width is the y axis' width in px. */
  width?: number;
}

/**
 * secondsAxes are the grid, axes and tooltip of the per-second charts: time
 * since the run's start on x over domain, from 0 up on y. An array of
 * elements, not a component, so that recharts finds them among its chart's
 * children.
 */
export function secondsAxes(domain: [number, number], { format, width = 52 }: Options) {
  return [
    <CartesianGrid key="grid" {...liveGridProps} />,
    <XAxis key="x" dataKey="t" type="number" domain={domain} ticks={timeTicks(domain)} tickFormatter={clock} {...liveAxisProps} interval="preserveStartEnd" />,
    <YAxis key="y" tickFormatter={(v: number) => (v === 0 ? '0' : format(v))} width={width} {...liveAxisProps} domain={[0, 'auto']} />,
    <Tooltip
      key="tooltip"
      contentStyle={tooltipStyle}
      labelStyle={tooltipLabelStyle}
      labelFormatter={(t) => `at ${clock(Number(t))}`}
      formatter={(v) => format(Number(v))}
      isAnimationActive={false}
    />,
  ];
}

import { useLayoutEffect, useRef, useState, type PointerEvent } from 'react';
import { axisProps, gridProps } from '@/components/ui/chart-style';
import { formatCount, formatDuration, formatRate } from '@/lib/format';
import { linearTicks, logTicks, type HistogramRow } from '../../utils/histogram';

// The plot's frame: room for the density ticks and title on the left, the
// cumulative ticks and title on the right, the time ticks and title below.
const margin = { top: 10, right: 58, bottom: 42, left: 74 };
const text = axisProps.tick;
// Below this many px per x tick, every other label is left out.
const labelRoom = 56;
// About the width of the pointer's figures, to keep them inside the plot.
const tipWidth = 200;

/** axis maps the domain [d0, d1] onto the pixels [p0, p1], through log10 when log; values outside are clamped. */
function axis(d0: number, d1: number, p0: number, p1: number, log: boolean): (v: number) => number {
  const f = log ? Math.log10 : (v: number) => v;
  const a = f(d0);
  const span = f(d1) - a || 1;
  return (v) => p0 + ((f(Math.min(Math.max(v, d0), d1)) - a) / span) * (p1 - p0);
}

/** useWidth is the width of the element behind the returned ref, kept up to date; fallback until it is laid out. */
function useWidth<T extends Element>(fallback: number) {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth);
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width || fallback] as const;
}

interface Props {
  rows: readonly HistogramRow[];
  /** log draws the time axis on a log scale. */
  log: boolean;
  /** kind names the latency, for the time axis's title: response or service. */
  kind: string;
  height: number;
}

/**
 * HistogramPlot draws a latency histogram as one SVG: each bucket a bar from
 * its start to its end on the time axis, as high as its density (requests per
 * ms of its width), and the cumulative share as a line on a 0–100 % axis. A
 * pointer over a bucket shows its figures. It is drawn by hand rather than by
 * the chart library, whose first chart on a page costs the result page's
 * first screen a few hundred ms of main thread (bench/results/web-big-run-*).
 */
export function HistogramPlot({ rows, log, kind, height }: Props) {
  const [box, width] = useWidth<HTMLDivElement>(640);
  const [hover, setHover] = useState<number>();
  const lo = rows[0]!.startUs;
  const hi = rows[rows.length - 1]!.endUs;
  const maxDensity = Math.max(...rows.map((r) => r.density));
  const left = margin.left;
  const right = width - margin.right;
  const top = margin.top;
  const bottom = height - margin.bottom;
  const x = axis(log ? lo : 0, hi, left, right, log);
  const y = axis(0, maxDensity, bottom, top, false);
  const pct = axis(0, 100, bottom, top, false);
  const xTicks = log ? logTicks(lo, hi, 6) : linearTicks(hi);
  const every = (right - left) / Math.max(1, xTicks.length) < labelRoom ? 2 : 1;
  const yTicks = linearTicks(maxDensity).filter((v) => v <= maxDensity * (1 + 1e-9));
  const line = [`M${x(lo)},${pct(0)}`, ...rows.map((r) => `L${x(r.endUs)},${pct(r.cumulative)}`)].join('');

  const onMove = (e: PointerEvent<SVGSVGElement>) => {
    const px = e.clientX - e.currentTarget.getBoundingClientRect().left;
    const i = rows.findIndex((r) => px <= x(r.endUs));
    setHover(px < left || px > right || i < 0 ? undefined : i);
  };
  const h = hover === undefined ? undefined : rows[hover];
  // The figures sit right of the bucket, or left of it near the right edge.
  const tipLeft = h && (x(h.endUs) + tipWidth < width ? x(h.endUs) + 8 : Math.max(0, x(h.startUs) - tipWidth));

  return (
    <div ref={box} className="histogram-plot">
      <svg
        className="chart-svg"
        width={width}
        height={height}
        role="img"
        aria-label={`Latency histogram of ${kind} time: ${rows.length} buckets from ${formatDuration(lo)} to ${formatDuration(hi)}`}
        onPointerMove={onMove}
        onPointerLeave={() => setHover(undefined)}
      >
        <g {...gridProps}>
          {yTicks.map((v) => (
            <line key={v} x1={left} x2={right} y1={y(v)} y2={y(v)} />
          ))}
        </g>
        <g className="run-histogram-bars">
          {rows.map((r, i) => {
            const x0 = x(r.startUs);
            const x1 = x(r.endUs);
            const w = Math.max(1, x1 - x0 - (x1 - x0 > 3 ? 1 : 0));
            return (
              <rect key={r.startUs} x={x0} y={y(r.density)} width={w} height={Math.max(0, bottom - y(r.density))} fill="var(--chart-2)"
                fillOpacity={i === hover ? 1 : 0.7} />
            );
          })}
        </g>
        {/* The pointer's place in the plot picks the bucket (onMove): the cumulative line and its marker take no pointer events of their own. */}
        <path d={line} fill="none" stroke="var(--chart-1)" strokeWidth={2} pointerEvents="none" />
        {h && <circle cx={x(h.endUs)} cy={pct(h.cumulative)} r={4} fill="var(--chart-1)" pointerEvents="none" />}
        <line x1={left} x2={right} y1={bottom} y2={bottom} stroke="var(--border)" />
        <g {...text} textAnchor="middle">
          {xTicks.map((v, i) =>
            i % every === 0 ? (
              <text key={v} x={x(v)} y={bottom + 16}>
                {formatDuration(v)}
              </text>
            ) : null,
          )}
          <text x={(left + right) / 2} y={height - 6}>
            {kind} time
          </text>
          <text transform={`translate(14 ${(top + bottom) / 2}) rotate(-90)`}>requests per ms</text>
          <text transform={`translate(${width - 10} ${(top + bottom) / 2}) rotate(90)`}>cumulative</text>
        </g>
        <g {...text} textAnchor="end" dominantBaseline="middle">
          {yTicks.map((v) => (
            <text key={v} x={left - 6} y={y(v)}>
              {formatRate(v)}
            </text>
          ))}
        </g>
        <g {...text} textAnchor="start" dominantBaseline="middle">
          {[0, 25, 50, 75, 100].map((v) => (
            <text key={v} x={right + 6} y={pct(v)}>
              {v}%
            </text>
          ))}
        </g>
      </svg>
      {h && (
        <div className="histogram-tip" aria-hidden="true" style={{ left: tipLeft, top: margin.top }}>
          <div className="histogram-tip-label">
            {formatDuration(h.startUs)} – {formatDuration(h.endUs)}
          </div>
          <div>requests in bucket: {formatCount(h.count)}</div>
          <div>requests per ms: {h.density.toPrecision(3)}</div>
          <div>cumulative: {h.cumulative.toFixed(2)}%</div>
        </div>
      )}
    </div>
  );
}

import { fireEvent, render, screen } from '@testing-library/react';
import type { HistogramRow } from '../../utils/histogram';
import { HistogramPlot } from './histogram-plot';

// Three buckets: 100–200 µs (10 requests), 200–1000 µs (80), 1–10 ms (10).
const rows: HistogramRow[] = [
  { startUs: 100, endUs: 200, count: 10, density: 100, cumulative: 10 },
  { startUs: 200, endUs: 1_000, count: 80, density: 100, cumulative: 90 },
  { startUs: 1_000, endUs: 10_000, count: 10, density: 10 / 9, cumulative: 100 },
];

function bars(container: HTMLElement) {
  return [...container.querySelectorAll<SVGRectElement>('.run-histogram-bars rect')].map((r) => ({
    x: Number(r.getAttribute('x')),
    width: Number(r.getAttribute('width')),
    height: Number(r.getAttribute('height')),
  }));
}

describe('HistogramPlot', () => {
  it('draws each bucket from its start to its end, as high as its density', () => {
    // jsdom lays nothing out: the plot takes its fallback width, 640 px, so x runs from 74 to 582.
    const { container } = render(<HistogramPlot rows={rows} log={false} kind="response" height={320} />);
    const b = bars(container);
    expect(b).toHaveLength(3);
    // Linear from 0 to 10 ms over 508 px: 100 µs is 5.08 px in.
    expect(b[0]!.x).toBeCloseTo(74 + 5.08, 5);
    expect(b[2]!.x).toBeCloseTo(74 + 50.8, 5);
    // Equal densities, equal heights, whatever the widths; the wide last bucket is 1/90 of that.
    expect(b[0]!.height).toBeCloseTo(b[1]!.height, 5);
    expect(b[2]!.height).toBeCloseTo(b[0]!.height / 90, 5);
    expect(screen.getByRole('img')).toHaveAccessibleName('Latency histogram of response time: 3 buckets from 100 µs to 10 ms');
    expect(container.querySelector('svg')).toHaveTextContent('response time');
  });

  it('spaces decades evenly on a log axis, with at most six round ticks', () => {
    const { container } = render(<HistogramPlot rows={rows} log kind="service" height={320} />);
    const b = bars(container);
    // 100 µs to 10 ms is two decades over 508 px: 200–1000 µs starts log10(2) of the first.
    expect(b[0]!.x).toBeCloseTo(74, 5);
    expect(b[1]!.x).toBeCloseTo(74 + 254 * Math.log10(2), 5);
    expect(b[2]!.x).toBeCloseTo(74 + 254, 5);
    const ticks = [...container.querySelectorAll('text')].map((t) => t.textContent);
    expect(ticks).toEqual(expect.arrayContaining(['100 µs', '300 µs', '1 ms', '3 ms', '10 ms', 'service time']));
  });

  it('shows the figures of the bucket under the pointer, and hides them when it leaves', () => {
    const { container } = render(<HistogramPlot rows={rows} log kind="response" height={320} />);
    const svg = container.querySelector('svg')!;
    // 300 px is inside the 200–1000 µs bucket (74 + 76 to 74 + 254).
    fireEvent.pointerMove(svg, { clientX: 300, clientY: 100 });
    const tip = container.querySelector('.histogram-tip')!;
    expect(tip).toHaveTextContent('200 µs – 1 ms');
    expect(tip).toHaveTextContent('requests in bucket: 80');
    expect(tip).toHaveTextContent('cumulative: 90.00%');
    expect(container.querySelector('.run-histogram-bars rect:nth-child(2)')).toHaveAttribute('fill-opacity', '1');
    // Left of the plot: nothing.
    fireEvent.pointerMove(svg, { clientX: 20, clientY: 100 });
    expect(container.querySelector('.histogram-tip')).toBeNull();
    fireEvent.pointerMove(svg, { clientX: 500, clientY: 100 });
    expect(container.querySelector('.histogram-tip')).toHaveTextContent('requests in bucket: 10');
    fireEvent.pointerLeave(svg);
    expect(container.querySelector('.histogram-tip')).toBeNull();
  });
});

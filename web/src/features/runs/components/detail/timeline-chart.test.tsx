import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { TimelineScatter } from './timeline-chart';

const id = '0190b1c2-0000-7000-8000-000000000002';

function timeline(samples: Schemas['TimelineSample'][], seen = samples.length): Schemas['RunTimeline'] {
  return { run_id: id, seen, samples };
}

describe('TimelineScatter', () => {
  it('draws every sampled request, errors apart, and downloads the API\'s CSV', async () => {
    const samples: Schemas['TimelineSample'][] = [];
    for (let i = 0; i < 40; i++) {
      const ok = i % 10 !== 0;
      samples.push({ intended_us: i * 100_000, sent_us: i * 100_000 + 50, latency_us: ok ? 900 + i : 40_000, code: ok ? '200' : '503', ok });
    }
    const { container } = render(<TimelineScatter runId={id} timeline={timeline(samples, 12_345)} size={{ width: 600, height: 300 }} />);
    const section = screen.getByRole('region', { name: 'Request timeline' });
    expect(within(section).getByTestId('timeline-note')).toHaveTextContent('40 of 12,345 requests sampled · 4 errors');
    // The Download menu's CSV is the API's timeline CSV.
    const clicked: { href: string; download: string }[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.getAttribute('href') ?? '', download: this.download });
    });
    fireEvent.click(within(section).getByRole('button', { name: /^Download ?Request timeline$/ }));
    fireEvent.click(within(section).getByRole('button', { name: 'CSV data' }));
    expect(clicked).toEqual([{ href: `/api/v1/runs/${id}/timeline?format=csv`, download: 'request-timeline.csv' }]);
    click.mockRestore();
    // One symbol per request: 36 ok in the first series, 4 errors in the second, once the chart's code has loaded (plots-code.ts).
    await waitFor(() => expect(container.querySelectorAll('.recharts-scatter')).toHaveLength(2));
    const series = container.querySelectorAll('.recharts-scatter');
    expect(series[0]!.querySelectorAll('.recharts-scatter-symbol')).toHaveLength(36);
    expect(series[1]!.querySelectorAll('.recharts-scatter-symbol')).toHaveLength(4);
    expect(within(section).getByText('ok')).toBeInTheDocument();
    expect(within(section).getByText('error')).toBeInTheDocument();
  });

  it('says when nothing was sampled', () => {
    render(<TimelineScatter runId={id} timeline={timeline([])} />);
    expect(screen.getByText('No requests were sampled.')).toBeInTheDocument();
    expect(screen.getByTestId('timeline-note')).toHaveTextContent('0 of 0 requests sampled');
  });
});

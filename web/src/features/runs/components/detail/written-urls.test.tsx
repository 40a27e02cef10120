import { render, screen } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { WrittenUrls } from './written-urls';

const id = '0190b1c2-0000-7000-8000-000000000003';

const lat: Schemas['LatencySummary'] = {
  count: 1,
  min_us: 1,
  avg_us: 1,
  stddev_us: 0,
  p50_us: 1,
  p75_us: 1,
  p90_us: 1,
  p99_us: 1,
  p999_us: 1,
  max_us: 1,
};

function result(written?: Schemas['WrittenURLCounts']): Schemas['RunResult'] {
  return {
    run_id: id,
    status: 'completed',
    imported: false,
    count: 1500,
    errors: 0,
    qps: 100,
    duration_seconds: 15,
    primary: 'service',
    service: lat,
    ret_codes: { '201': 1500 },
    bytes_sent: 1,
    bytes_received: 1,
    shards: 2,
    lost_shards: 0,
    degraded: false,
    written_urls: written,
  };
}

describe('WrittenUrls', () => {
  it('links the download with the count stored', () => {
    render(<WrittenUrls runId={id} result={result({ stored: 1500, dropped: 0 })} />);
    const link = screen.getByRole('link', { name: 'Written URLs (1,500)' });
    expect(link).toHaveAttribute('href', `/api/v1/runs/${id}/written-urls`);
    expect(link).toHaveAttribute('download', `barrage-${id}-written-urls.txt`);
    expect(screen.getByTestId('written-urls-note')).not.toHaveTextContent('not recorded');
    expect(screen.getByTestId('written-urls-note')).toHaveTextContent('urls_from_run');
  });

  it('says how many writes were dropped', () => {
    render(<WrittenUrls runId={id} result={result({ stored: 1_000_000, dropped: 2345 })} />);
    expect(screen.getByRole('link', { name: 'Written URLs (1,000,000)' })).toBeInTheDocument();
    expect(screen.getByTestId('written-urls-note')).toHaveTextContent('2,345 successful writes were not recorded');
  });

  it('has no link when nothing was written', () => {
    render(<WrittenUrls runId={id} result={result({ stored: 0, dropped: 0 })} />);
    expect(screen.getByRole('region', { name: 'Written URLs' })).toHaveTextContent('No successful write was recorded.');
    expect(screen.queryByRole('link')).toBeNull();
  });

  it('renders nothing for a run that did not record', () => {
    const { container } = render(<WrittenUrls runId={id} result={result()} />);
    expect(container).toBeEmptyDOMElement();
  });
});

import { render, screen, within } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { PercentileTable } from './percentile-table';

const lat = (p50: number, count = 200): Schemas['LatencySummary'] => ({
  count,
  min_us: p50 / 2,
  avg_us: p50,
  stddev_us: 10,
  p50_us: p50,
  p75_us: p50,
  p90_us: p50,
  p99_us: p50,
  p999_us: p50,
  max_us: p50 * 2,
});

function result(over: Partial<Schemas['RunResult']> = {}): Schemas['RunResult'] {
  return {
    run_id: 'r',
    status: 'completed',
    imported: false,
    count: 200,
    errors: 0,
    qps: 100,
    duration_seconds: 2,
    primary: 'response',
    response: lat(5400),
    service: lat(5200),
    lag: lat(100),
    ret_codes: { '200': 200 },
    bytes_sent: 1000,
    bytes_received: 2000,
    shards: 2,
    lost_shards: 0,
    degraded: false,
    ...over,
  };
}

describe('PercentileTable', () => {
  it('adds a server column when the run read a latency header', () => {
    render(<PercentileTable result={result({ server: lat(5000, 180) })} />);
    const table = screen.getByRole('region', { name: 'Percentiles' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Percentile', 'response ★ (primary)', 'service', 'lag', 'server']);
    expect(within(table).getByRole('row', { name: /p50/ })).toHaveTextContent('5 ms');
    expect(within(table).getByRole('row', { name: /count/ })).toHaveTextContent('180');
    expect(screen.getByText(/server: reported by the target/)).toBeInTheDocument();
  });

  it('has no server column without one', () => {
    render(<PercentileTable result={result()} />);
    const table = screen.getByRole('region', { name: 'Percentiles' });
    expect(within(table).getAllByRole('columnheader')).toHaveLength(4);
    expect(screen.queryByText(/server: reported by the target/)).toBeNull();
  });

  it('marks the percentiles that rest on too few samples, in text', () => {
    render(<PercentileTable result={result({ response: lat(5400, 500), service: lat(5200, 500), lag: lat(100, 500) })} />);
    const table = screen.getByRole('region', { name: 'Percentiles' });
    const p999 = within(table).getByRole('row', { name: /^p99\.9/ });
    expect(p999.querySelectorAll('[data-thin="p99.9"]')).toHaveLength(3);
    expect(p999).toHaveTextContent('few samples: p99.9 of 500 requests is the maximum');
    expect(within(table).getByRole('row', { name: /^p90/ }).querySelector('[data-thin]')).toBeNull();
    const notes = within(table).getByRole('list', { name: 'Percentiles with few samples' });
    expect(within(notes).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      '† few samples: p99 of 500 requests rests on 5 requests beyond it; it needs 1,000 to be steady.',
      '† few samples: p99.9 of 500 requests is the maximum: fewer than one request lies beyond it; it needs 10,000.',
    ]);
  });

  it('marks nothing when every percentile has enough samples', () => {
    render(<PercentileTable result={result({ response: lat(5400, 20_000), service: lat(5200, 20_000), lag: lat(100, 20_000) })} />);
    expect(document.querySelector('[data-thin]')).toBeNull();
    expect(screen.queryByRole('list', { name: 'Percentiles with few samples' })).toBeNull();
  });
});

import { render, screen } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { LagNotice } from './lag-notice';

const lat = (p99: number): Schemas['LatencySummary'] => ({
  count: 1000, min_us: 1, avg_us: p99, stddev_us: 1, p50_us: p99, p75_us: p99, p90_us: p99, p99_us: p99, p999_us: p99, max_us: p99,
});

function result(lag: number, service: number): Schemas['RunResult'] {
  return {
    run_id: 'r', status: 'completed', imported: false, count: 1000, errors: 0, qps: 100, duration_seconds: 10, primary: 'response',
    response: lat(lag + service), service: lat(service), lag: lat(lag), ret_codes: {}, bytes_sent: 0, bytes_received: 0,
    shards: 1, lost_shards: 0, degraded: false,
  };
}

describe('LagNotice', () => {
  it('says the generator fell behind when lag rivals service time', () => {
    render(<LagNotice result={result(1_500_000, 20_000)} />);
    expect(screen.getByRole('note', { name: 'Lag rivals service time' })).toHaveTextContent(
      'The load generator fell behind: lag p99 1.5 s against service p99 20 ms.',
    );
  });
  it('says nothing when lag is small beside service time', () => {
    render(<LagNotice result={result(2_000, 20_000)} />);
    expect(screen.queryByRole('note')).toBeNull();
  });
});

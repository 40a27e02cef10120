import { MemoryRouter } from 'react-router';
import { render, screen } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { LivePanel } from './live-panel';
import { ResultSummary } from './result-summary';

const lat = (p99: number): Schemas['LatencySummary'] => ({
  count: 1600,
  min_us: 50,
  avg_us: 900,
  stddev_us: 100,
  p50_us: 800,
  p75_us: 1000,
  p90_us: 2500,
  p99_us: p99,
  p999_us: 7000,
  max_us: 8000,
});

function result(over: Partial<Schemas['RunResult']> = {}): Schemas['RunResult'] {
  return {
    run_id: 'r',
    status: 'completed',
    imported: false,
    count: 1600,
    errors: 32,
    qps: 200.2,
    duration_seconds: 7.99,
    primary: 'response',
    response: lat(5420),
    service: lat(2100),
    lag: lat(300),
    ret_codes: { '200': 1568, '503': 32 },
    bytes_sent: 1000,
    bytes_received: 2000,
    shards: 2,
    lost_shards: 0,
    degraded: false,
    ...over,
  };
}

describe('ResultSummary', () => {
  it('shows the count, rate, error share and the primary p99', () => {
    render(<ResultSummary result={result()} />);
    expect(screen.getByTestId('result-count')).toHaveTextContent('1,600');
    expect(screen.getByTestId('result-qps')).toHaveTextContent('200');
    expect(screen.getByTestId('result-errors')).toHaveTextContent('32');
    expect(screen.getByText('2% of requests')).toBeInTheDocument();
    expect(screen.getByTestId('result-p99')).toHaveTextContent('5.42 ms');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('uses service time when that is primary, and warns of lost shards', () => {
    render(
      <MemoryRouter>
        <ResultSummary result={result({ primary: 'service', degraded: true, shards: 1, lost_shards: 1 })} />
      </MemoryRouter>,
    );
    expect(screen.getByTestId('result-p99')).toHaveTextContent('2.1 ms');
    expect(screen.getByRole('alert')).toHaveTextContent('1 of 2 shards were lost: their agent stopped answering mid-run.');
    expect(screen.getByRole('link', { name: 'Agents' })).toHaveAttribute('href', '/agents');
  });
});

function run(over: Partial<Schemas['Run']>): Schemas['Run'] {
  return {
    id: 'r',
    project_id: 'p',
    name: 'n',
    status: 'running',
    source: 'ui',
    spec: { url: 'http://x/', qps: 200, duration: '8s' },
    thresholds: [],
    labels: {},
    target: 'http://x/',
    qps_requested: 200,
    created_at: '2025-01-01T00:00:00Z',
    updated_at: '2025-01-01T00:00:00Z',
    shard_count: 2,
    degraded: false,
    pinned: false,
    ...over,
  };
}

describe('LivePanel', () => {
  const start = Date.parse('2025-01-01T00:00:10Z');

  it('shows progress to the deadline of a timed run', () => {
    render(<LivePanel run={run({ start_at: '2025-01-01T00:00:10Z' })} now={start + 3_000} />);
    expect(screen.getByText('3 s of 8 s, 5 s left')).toBeInTheDocument();
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '38');
    expect(screen.getByText('2 shards')).toBeInTheDocument();
  });

  it('shows elapsed time only for a count-based run', () => {
    render(<LivePanel run={run({ start_at: '2025-01-01T00:00:10Z', spec: { url: 'http://x/', count: 500 } })} now={start + 4_200} />);
    expect(screen.getByText('4 s elapsed')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('counts down to the start', () => {
    render(<LivePanel run={run({ start_at: '2025-01-01T00:00:10Z' })} now={start - 1_500} />);
    expect(screen.getByText('Starting in 2 s')).toBeInTheDocument();
  });
});

import { screen } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { renderRoutes } from '@/testing/render';
import { RunHeader } from './run-header';

const run = (over: Partial<Schemas['Run']> = {}): Schemas['Run'] => ({
  id: '0190b1c2-0000-7000-8000-000000000001',
  project_id: 'p',
  name: 'faulty echo',
  status: 'completed',
  source: 'api',
  spec: { url: 'http://echo-1:8080/' },
  thresholds: [],
  labels: {},
  target: 'http://echo-1:8080/',
  qps_requested: 0,
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:05Z',
  shard_count: 0,
  degraded: false,
    pinned: false,
  ...over,
});

function renderHeader(r: Schemas['Run']) {
  renderRoutes([{ path: '/', element: <RunHeader run={r} hasResult={false} live={undefined} now={Date.parse('2025-01-01T00:01:00Z')} /> }], '/');
}

describe('RunHeader', () => {
  it('shows the echo profile the run targeted, with its content and echo', () => {
    renderHeader(run({ echo_profile: { echo: 'echo-1', profile_id: 'p1', name: 'twenty', content: 'status=503:20' } }));
    const line = screen.getByTestId('run-echo-profile');
    expect(line).toHaveTextContent('Echo profile: twenty (status=503:20) on echo-1');
    expect(screen.getByRole('link', { name: 'twenty' })).toHaveAttribute('href', '/echo-profiles');
  });

  it('shows no echo profile line for a run without one', () => {
    renderHeader(run());
    expect(screen.getByRole('heading', { name: 'faulty echo' })).toBeInTheDocument();
    expect(screen.queryByTestId('run-echo-profile')).toBeNull();
  });
});

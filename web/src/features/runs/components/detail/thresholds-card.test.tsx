import { screen } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { runName } from '@/lib/run-name';
import { renderRoutes } from '@/testing/render';
import { ThresholdsCard } from './thresholds-card';

// The card reads the baseline run to name it; until (or unless) it loads,
// the link names the run by its id as everywhere (runName).
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const run = (over: Partial<Schemas['Run']>): Schemas['Run'] => ({
  id: 'r', project_id: 'p', name: 'checkout', status: 'completed', source: 'api', spec: { url: 'http://t/' },
  thresholds: ['p(99) < baseline * 1.1 @ 95%'], labels: {}, target: 'http://t/', qps_requested: 0,
  created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', shard_count: 1, degraded: false, pinned: false,
  ...over,
});

function show(r: Schemas['Run']) {
  fetchMock.mockResolvedValue(new Response('{}', { status: 404 }));
  renderRoutes([{ path: '/', element: <ThresholdsCard run={r} /> }], '/');
}

describe('ThresholdsCard baseline', () => {
  it('names the newest pooled run, how many older ones were pooled, and why fewer than asked', () => {
    const newest = '0190b1c2-0000-7000-8000-0000000000b3';
    show(run({
      baseline_run_id: newest, baseline_last: 5,
      baseline_pool: { runs: [newest, 'b2', 'b1'], note: 'pooled 3 runs: the test has 3 earlier passing runs of the 5 asked for' },
    }));
    expect(screen.getByRole('link', { name: runName({ id: newest }) })).toHaveAttribute('href', `/runs/${newest}`);
    expect(screen.getByText(/and 2 older, pooled/)).toBeInTheDocument();
    expect(screen.getByTestId('baseline-note')).toHaveTextContent('Baseline: pooled 3 runs: the test has 3 earlier passing runs of the 5 asked for');
  });

  it('shows one baseline run without a pool', () => {
    show(run({ baseline_run_id: '0190b1c2-0000-7000-8000-0000000000b3' }));
    expect(screen.queryByText(/pooled/)).toBeNull();
    expect(screen.queryByTestId('baseline-note')).toBeNull();
  });
});

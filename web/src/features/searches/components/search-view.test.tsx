import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { SearchView } from './search-view';

const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const step = (i: number, qps: number, status: Schemas['SearchStep']['status'], p99: number, detail = ''): Schemas['SearchStep'] => ({
  step: i, qps, status, count: qps * 2, errors: 0, achieved_qps: qps, p50_us: p99 / 2, p90_us: p99, p99_us: p99, max_us: p99,
  outcomes: [], detail, started_at: '2026-01-01T00:00:00Z', run_id: `run-${i}`,
});

const running: Schemas['Search'] = {
  id: 's1', project_id: 'p', name: 'knee', spec: { url: 'http://echo:8088/?saturate=5ms:5ms' }, objective: 'p(99) < 50ms',
  min_qps: 50, max_qps: 400, step_duration: '2s', warmup: '1s', resolution: 0.02, status: 'running', message: '',
  created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
  steps: [step(0, 50, 'passed', 16_000), step(1, 100, 'passed', 20_000), step(2, 200, 'running', 0)],
};

const done: Schemas['Search'] = {
  ...running, status: 'completed', outcome: 'found', best_qps: 175, first_fail_qps: 178.13,
  message: 'meets the objective up to 175 qps; fails at 178.13 qps',
  steps: [...running.steps.slice(0, 2), step(2, 200, 'failed', 190_000, 'p(99) < 50ms: was 190ms')],
};

afterEach(() => fetchMock.mockReset());

describe('SearchView', () => {
  it('shows a running search live, then its answer, and a runner may cancel it', async () => {
    let current = running;
    let canceled = false;
    fetchMock.mockImplementation(async (req) => {
      const p = new URL(req.url).pathname;
      if (p === '/api/v1/searches/s1/cancel' && req.method === 'POST') {
        canceled = true;
        return jsonResponse({ ...running, status: 'canceled', message: 'canceled' });
      }
      if (p === '/api/v1/searches/s1') return jsonResponse(current);
      return jsonResponse({}, 404);
    });
    renderRoutes([{ path: '/searches/:id', element: <SearchView searchId="s1" role="runner" /> }], '/searches/s1');
    expect(await screen.findByTestId('search-answer')).toHaveTextContent('running: 2 steps done');
    const rows = within(screen.getByTestId('search-steps')).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(3);
    expect(within(rows[0]!).getByText('passed')).toHaveClass('badge', 'ok');
    expect(within(rows[0]!).getByRole('link', { name: 'run' })).toHaveAttribute('href', '/runs/run-0');
    expect(screen.getByTestId('search-step-chart')).toBeInTheDocument();

    current = done; // the 1 s poll picks up the end
    await waitFor(() => expect(screen.getByTestId('search-answer')).toHaveTextContent('meets the objective up to 175 qps'), { timeout: 3_000 });
    expect(screen.queryByTestId('cancel-search')).toBeNull();
    expect(screen.getByText('p(99) < 50ms: was 190ms')).toBeInTheDocument();

    current = running;
    fetchMock.mockClear();
    renderRoutes([{ path: '/searches/:id', element: <SearchView searchId="s1" role="runner" /> }], '/searches/s1');
    await userEvent.setup().click(await screen.findByTestId('cancel-search'));
    await waitFor(() => expect(canceled).toBe(true));
  });

  it('offers no cancel to a viewer', async () => {
    fetchMock.mockImplementation(async () => jsonResponse(running));
    renderRoutes([{ path: '/searches/:id', element: <SearchView searchId="s1" role="viewer" /> }], '/searches/s1');
    expect(await screen.findByTestId('search-answer')).toBeInTheDocument();
    expect(screen.queryByTestId('cancel-search')).toBeNull();
  });
});

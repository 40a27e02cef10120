import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { ReadOnlyContext } from '@/lib/read-only';
import { RunsList } from './runs-list';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const run = (n: number, over: Partial<Schemas['Run']> = {}): Schemas['Run'] => ({
  id: `0190b1c2-0000-7000-8000-${String(n).padStart(12, '0')}`,
  project_id: 'p',
  name: `run ${n}`,
  status: 'completed',
  source: 'ui',
  spec: { url: 'http://t/' },
  thresholds: [],
  labels: { team: 'a' },
  target: `http://target-${n}/`,
  qps_requested: 100,
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:05Z',
  started_at: '2025-01-01T00:00:00Z',
  ended_at: '2025-01-01T00:00:05Z',
  shard_count: 2,
  degraded: false,
    pinned: false,
  summary: { count: 500, errors: 5, qps: 99.5, p50_us: 1500, p99_us: 25_000 },
  ...over,
});

function renderList(url: string) {
  return renderRoutes(
    [
      { path: '/runs', element: <RunsList /> },
      { path: '/compare', element: <p>compare page</p> },
    ],
    url,
  );
}

afterEach(() => fetchMock.mockReset());

describe('RunsList', () => {
  it('sends the URL filters, pages with Load more and compares the selected runs', async () => {
    fetchMock.mockImplementation(async (req) => {
      const u = new URL(req.url);
      if (u.pathname === '/api/v1/tests') return jsonResponse({ items: [] });
      return u.searchParams.get('cursor') === 'c2' ? jsonResponse({ items: [run(3)] }) : jsonResponse({ items: [run(1), run(2)], next_cursor: 'c2' });
    });
    const user = userEvent.setup();
    const router = renderList('/runs?status=failed,completed&label=team%3Da');

    const table = await screen.findByTestId('runs-table');
    const runsCall = fetchMock.mock.calls.map(([r]) => new URL(r.url)).find((u) => u.pathname === '/api/v1/runs')!;
    expect(runsCall.searchParams.get('project')).toBe('default');
    expect(runsCall.searchParams.get('status')).toBe('completed,failed');
    expect(runsCall.searchParams.getAll('label')).toEqual(['team=a']);

    const first = table.querySelector('[data-run-id="0190b1c2-0000-7000-8000-000000000001"]') as HTMLElement;
    expect(within(first).getByRole('link', { name: 'run 1' })).toHaveAttribute('href', '/runs/0190b1c2-0000-7000-8000-000000000001');
    expect(first).toHaveTextContent('100 / 99.5');
    expect(first).toHaveTextContent('1.5 ms / 25 ms');
    expect(first).toHaveTextContent('5 (1%)');
    expect(first).toHaveTextContent('5 s');

    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(table.querySelectorAll('[data-run-id]')).toHaveLength(3));
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();

    const compare = screen.getByRole('button', { name: /Compare/ });
    expect(compare).toBeDisabled();
    await user.click(screen.getByLabelText('Select run 3 to compare'));
    expect(compare).toBeDisabled();
    await user.click(screen.getByLabelText('Select run 1 to compare'));
    expect(compare).toHaveTextContent('Compare (2)');
    await user.click(compare);
    expect(router.state.location.pathname).toBe('/compare');
    expect(router.state.location.search).toBe('?ids=0190b1c2-0000-7000-8000-000000000003,0190b1c2-0000-7000-8000-000000000001');
  });

  it('filters loaded rows by free text and keeps it in the URL', async () => {
    fetchMock.mockImplementation(async (req) =>
      new URL(req.url).pathname === '/api/v1/tests' ? jsonResponse({ items: [] }) : jsonResponse({ items: [run(1), run(2, { name: 'checkout' })] }),
    );
    const user = userEvent.setup();
    const router = renderList('/runs');
    const table = await screen.findByTestId('runs-table');
    await user.type(screen.getByRole('searchbox'), 'checkout');
    await waitFor(() => expect(table.querySelectorAll('[data-run-id]')).toHaveLength(1));
    expect(router.state.location.search).toBe('?q=checkout');
  });

  it('marks imported and synced runs with a badge', async () => {
    fetchMock.mockImplementation(async (req) =>
      new URL(req.url).pathname === '/api/v1/tests'
        ? jsonResponse({ items: [] })
        : jsonResponse({ items: [run(1), run(2, { source: 'import', name: 'uploaded' }), run(3, { source: 'sync' })] }),
    );
    renderList('/runs');
    const table = await screen.findByTestId('runs-table');
    const row = (n: number) => table.querySelector(`[data-run-id="0190b1c2-0000-7000-8000-00000000000${n}"]`) as HTMLElement;
    expect(within(row(1)).queryByText('imported')).toBeNull();
    expect(within(row(2)).getByText('imported')).toBeInTheDocument();
    expect(within(row(2)).getByRole('link', { name: 'uploaded' })).toBeInTheDocument();
    expect(within(row(3)).getByText('imported')).toBeInTheDocument();
  });

  it('links to New run when there are no runs', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ items: [] }));
    renderList('/runs');
    expect(await screen.findByRole('link', { name: 'Start a new run' })).toHaveAttribute('href', '/runs/new');
  });

  it('offers no new run and no import on a read-only server, but still compares', async () => {
    fetchMock.mockImplementation(async (req) =>
      new URL(req.url).pathname === '/api/v1/tests' ? jsonResponse({ items: [] }) : jsonResponse({ items: [run(1), run(2)] }),
    );
    renderRoutes(
      [{ path: '/runs', element: <ReadOnlyContext.Provider value><RunsList /></ReadOnlyContext.Provider> }],
      '/runs',
    );
    await screen.findByTestId('runs-table');
    expect(screen.queryByRole('link', { name: 'New run' })).toBeNull();
    expect(screen.queryByText(/import/i)).toBeNull();
    expect(screen.getByRole('button', { name: /Compare/ })).toBeInTheDocument();
  });
});

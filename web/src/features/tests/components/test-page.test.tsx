import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { formatTime } from '@/lib/format';
import { jsonResponse, problemResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { NewTest } from './new-test';
import { TestPage } from './test-page';
import { TestsTable } from './tests-table';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const testId = '0190b1c2-0000-7000-8000-00000000t001';
// Two hours and a minute ahead, so the relative time reads "in 2 h" however long the test takes.
const nextRun = new Date(Date.now() + 2 * 3_600_000 + 60_000).toISOString();

const stored = (over: Partial<Schemas['Test']> = {}): Schemas['Test'] => ({
  id: testId,
  project_id: 'p',
  name: 'checkout nightly',
  description: '',
  spec: { url: 'http://checkout.internal/', qps: 50, duration: '30s' },
  thresholds: ['p(99) < 250ms'],
  labels: { team: 'payments' },
  schedule: '0 3 * * 1-5',
  timezone: 'Europe/Berlin',
  next_run_at: nextRun,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  ...over,
});

const requests = (method: string, path: string) =>
  fetchMock.mock.calls.map(([r]) => r).filter((r) => r.method === method && new URL(r.url).pathname === path);

/** stub answers the test, its runs and trend; put answers PUT /tests/{id}. */
function stub(test: Schemas['Test'], put?: (body: Schemas['TestReplace']) => Response) {
  fetchMock.mockImplementation(async (req) => {
    const p = new URL(req.url).pathname;
    if (req.method === 'PUT' && p === `/api/v1/tests/${testId}` && put) return put((await req.clone().json()) as Schemas['TestReplace']);
    if (p === `/api/v1/tests/${testId}`) return jsonResponse(test);
    if (p === `/api/v1/tests/${testId}/trend`) return jsonResponse({ items: [], change_points: [], limits: [] });
    if (p === '/api/v1/runs') return jsonResponse({ items: [] });
    return jsonResponse({}, 404);
  });
}

function renderPage(editing: boolean, onEditingChange = vi.fn()) {
  renderRoutes(
    [{ path: '/tests/:id', element: <TestPage testId={testId} editing={editing} onEditingChange={onEditingChange} onRunStarted={() => {}} onDeleted={() => {}} /> }],
    `/tests/${testId}`,
  );
  return onEditingChange;
}

afterEach(() => fetchMock.mockReset());

describe('TestPage schedule', () => {
  it('shows the schedule, its zone and the next run, relative and absolute', async () => {
    stub(stored());
    renderPage(false);
    const schedule = await screen.findByTestId('test-schedule');
    expect(within(schedule).getByText('0 3 * * 1-5')).toBeInTheDocument();
    expect(schedule).toHaveTextContent('Europe/Berlin');
    expect(within(schedule).getByTestId('test-next-run')).toHaveTextContent(`next run in 2 h (${formatTime(nextRun)})`);
  });

  it('says so when the test has no schedule', async () => {
    stub(stored({ schedule: undefined, timezone: 'UTC', next_run_at: undefined }));
    renderPage(false);
    expect(await screen.findByTestId('test-schedule')).toHaveTextContent('Not scheduled.');
    expect(screen.queryByTestId('test-next-run')).toBeNull();
  });

  it('sends the stored schedule and zone back on a save that does not touch them', async () => {
    stub(stored(), (body) => jsonResponse({ ...stored(), ...body }));
    const onEditingChange = renderPage(true);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Edit checkout nightly' });
    expect(within(form).getByLabelText(/^Schedule \(cron\)/)).toHaveValue('0 3 * * 1-5');
    expect(within(form).getByLabelText(/^Time zone/)).toHaveValue('Europe/Berlin');
    const name = within(form).getByLabelText(/^Name/);
    await user.clear(name);
    await user.type(name, 'checkout weekdays');
    await user.click(within(form).getByRole('button', { name: 'Save test' }));

    await waitFor(() => expect(onEditingChange).toHaveBeenCalledWith(false));
    const [put] = requests('PUT', `/api/v1/tests/${testId}`);
    expect(await put!.json()).toEqual({
      name: 'checkout weekdays',
      description: '',
      labels: { team: 'payments' },
      thresholds: ['p(99) < 250ms'],
      spec: { url: 'http://checkout.internal/', qps: 50, duration: '30s' },
      schedule: '0 3 * * 1-5',
      timezone: 'Europe/Berlin',
    });
  });

  it('clears a schedule with an empty field', async () => {
    stub(stored(), (body) => jsonResponse({ ...stored(), ...body, next_run_at: undefined }));
    const onEditingChange = renderPage(true);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Edit checkout nightly' });
    await user.clear(within(form).getByLabelText(/^Schedule \(cron\)/));
    await user.click(within(form).getByRole('button', { name: 'Save test' }));
    await waitFor(() => expect(onEditingChange).toHaveBeenCalledWith(false));
    expect(await requests('PUT', `/api/v1/tests/${testId}`)[0]!.json()).toMatchObject({ schedule: '', timezone: 'Europe/Berlin' });
  });

  it('shows the API errors on schedule and timezone next to their fields', async () => {
    stub(stored(), () =>
      problemResponse(
        {
          type: 'https://barrage.dev/problems/validation',
          title: 'Validation failed',
          status: 422,
          detail: 'the test has invalid fields',
          errors: [
            { field: 'schedule', message: 'expected exactly 5 fields, found 3' },
            { field: 'timezone', message: 'unknown time zone Mars/Olympus' },
          ],
        },
        422,
      ),
    );
    renderPage(true);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Edit checkout nightly' });
    const schedule = within(form).getByLabelText(/^Schedule \(cron\)/);
    const zone = within(form).getByLabelText(/^Time zone/);
    await user.clear(schedule);
    await user.type(schedule, '0 3 *');
    await user.clear(zone);
    await user.type(zone, 'Mars/Olympus');
    await user.click(within(form).getByRole('button', { name: 'Save test' }));

    await waitFor(() => expect(schedule).toHaveAttribute('aria-invalid', 'true'));
    expect(schedule).toHaveAccessibleDescription('expected exactly 5 fields, found 3');
    expect(zone).toHaveAttribute('aria-invalid', 'true');
    expect(zone).toHaveAccessibleDescription('unknown time zone Mars/Olympus');
    expect(within(form).queryByRole('alert')).toBeNull();
    expect(await requests('PUT', `/api/v1/tests/${testId}`)[0]!.json()).toMatchObject({ schedule: '0 3 *', timezone: 'Mars/Olympus' });
  });
});

describe('NewTest schedule', () => {
  it('creates a test with a schedule, the zone defaulting to UTC', async () => {
    fetchMock.mockImplementation(async (req) => jsonResponse({ ...stored(), ...((await req.clone().json()) as object), id: 'new-id' }, 201));
    const onCreated = vi.fn();
    renderRoutes([{ path: '/tests', element: <NewTest onCreated={onCreated} onCancel={() => {}} /> }], '/tests?new=1');
    const user = userEvent.setup();
    const form = screen.getByRole('form', { name: 'New test' });
    const zone = within(form).getByLabelText(/^Time zone/);
    expect(zone).toHaveValue('UTC');
    expect(zone).toHaveAttribute('list');
    expect(document.getElementById(zone.getAttribute('list')!)?.querySelector('option[value="America/New_York"]')).not.toBeNull();
    await user.type(within(form).getByLabelText(/^Name/), 'hourly smoke');
    await user.type(within(form).getByLabelText(/^Schedule \(cron\)/), '@hourly');
    await user.click(within(form).getByRole('button', { name: 'Create test' }));

    await waitFor(() => expect(onCreated).toHaveBeenCalledWith('new-id'));
    expect(await requests('POST', '/api/v1/tests')[0]!.json()).toEqual({
      project: 'default',
      name: 'hourly smoke',
      description: '',
      labels: {},
      thresholds: [],
      spec: { url: 'http://127.0.0.1:8081/', qps: 100, duration: '30s', connections: 8 },
      schedule: '@hourly',
      timezone: 'UTC',
    });
  });
});

describe('TestsTable schedule column', () => {
  it('shows each test schedule and zone, or — without one', async () => {
    fetchMock.mockImplementation(async () =>
      jsonResponse({ items: [stored(), stored({ id: 'plain', name: 'ad hoc', schedule: undefined, timezone: 'UTC', next_run_at: undefined })] }),
    );
    renderRoutes([{ path: '/tests', element: <TestsTable /> }], '/tests');
    const table = await screen.findByTestId('tests-table');
    const headers = within(table).getAllByRole('columnheader').map((h) => h.textContent);
    const col = headers.indexOf('Schedule');
    expect(col).toBeGreaterThan(0);
    const [, scheduled, plain] = within(table).getAllByRole('row');
    const cell = within(scheduled!).getAllByRole('cell')[col]!;
    expect(cell).toHaveTextContent('0 3 * * 1-5 Europe/Berlin');
    expect(cell.firstElementChild).toHaveAttribute('title', `next run ${formatTime(nextRun)}`);
    expect(within(plain!).getAllByRole('cell')[col]).toHaveTextContent(/^—$/);
  });
});

describe('TestPage trend', () => {
  it('lists where the latency changed, with the run and the levels', async () => {
    const runId = '0190b1c2-0000-7000-8000-0000000run13';
    const point = (id: string, i: number, p99: number): Schemas['TrendPoint'] => ({
      run_id: id, name: `nightly ${i}`, status: 'completed', verdict: 'pass', created_at: `2026-05-01T10:${String(i).padStart(2, '0')}:00Z`,
      started_at: `2026-05-01T10:${String(i).padStart(2, '0')}:01Z`, count: 1000, errors: 0, error_rate: 0, qps: 100, p50_us: 5000, p90_us: 8000, p99_us: p99,
      degraded: false,
    });
    const items = Array.from({ length: 8 }, (_, i) => (i === 4 ? point(runId, i, 23_600) : point(`run-${i}`, i, i < 4 ? 20_000 : 23_600)));
    const trend: Schemas['TestTrend'] = {
      items, change_points: [{ run_id: runId, metric: 'p99', before_us: 20_000, after_us: 23_600, change: 0.18 }], limits: [],
    };
    fetchMock.mockImplementation(async (req) => {
      const p = new URL(req.url).pathname;
      if (p === `/api/v1/tests/${testId}`) return jsonResponse(stored());
      if (p === `/api/v1/tests/${testId}/trend`) return jsonResponse(trend);
      if (p === '/api/v1/runs') return jsonResponse({ items: [] });
      return jsonResponse({}, 404);
    });
    renderPage(false);
    const list = await screen.findByRole('list', { name: 'Latency changes' });
    const item = within(list).getByRole('listitem');
    expect(item).toHaveTextContent('p99 +18 % (20 ms → 23.6 ms) from run nightly 4');
    expect(within(item).getByRole('link', { name: 'nightly 4' })).toHaveAttribute('href', `/runs/${runId}`);
  });

  it("opens a run's menu from the table view: its figures and verdict, the run, and the compare with the run before", async () => {
    const at = (i: number) => `2026-05-01T10:0${i}:00Z`;
    const items: Schemas['TrendPoint'][] = [
      { run_id: 'r1', name: 'first', status: 'completed', verdict: 'pass', created_at: at(1), started_at: at(1), count: 100, errors: 0,
        error_rate: 0, qps: 50, p50_us: 4000, p90_us: 5000, p99_us: 6000, degraded: false },
      { run_id: 'r2', name: 'second', status: 'completed', verdict: 'fail', created_at: at(2), started_at: at(2), count: 100, errors: 0,
        error_rate: 0, qps: 25, p50_us: 40_000, p90_us: 50_000, p99_us: 160_000, degraded: false },
      { run_id: 'r3', name: 'third', status: 'completed', verdict: 'error', created_at: at(3), started_at: at(3), count: 60, errors: 0,
        error_rate: 0, qps: 30, p50_us: 4000, p90_us: 5000, p99_us: 7000, degraded: true },
    ];
    fetchMock.mockImplementation(async (req) => {
      const p = new URL(req.url).pathname;
      if (p === `/api/v1/tests/${testId}`) return jsonResponse(stored());
      if (p === `/api/v1/tests/${testId}/trend`) return jsonResponse({ items, change_points: [], limits: [] });
      if (p === '/api/v1/runs') return jsonResponse({ items: [] });
      return jsonResponse({}, 404);
    });
    const user = userEvent.setup();
    renderPage(false);
    const legend = await screen.findByRole('list', { name: 'Verdict markers' });
    expect(within(legend).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'passed', 'failed', 'inconclusive', 'degraded (lost a shard)',
    ]);
    await user.click(screen.getByText('Table view'));
    await user.click(screen.getByRole('button', { name: 'second' }));
    const menu = screen.getByRole('dialog', { name: 'Run second' });
    expect(within(menu).getByRole('link', { name: 'Open run' })).toHaveFocus();
    expect(within(menu).getByRole('link', { name: 'Open run' })).toHaveAttribute('href', '/runs/r2');
    expect(within(menu).getByRole('link', { name: 'Compare with previous run' })).toHaveAttribute('href', '/compare?ids=r1,r2');
    expect(menu).toHaveTextContent('160 ms');
    expect(within(menu).getByTestId('trend-menu-verdict')).toHaveTextContent('failed');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    // The focus goes back once the chart has drawn again (next animation frame).
    await waitFor(() => expect(screen.getByRole('button', { name: 'second' })).toHaveFocus());

    await user.click(screen.getByRole('button', { name: 'third' }));
    expect(within(screen.getByRole('dialog', { name: 'Run third' })).getByTestId('trend-menu-verdict')).toHaveTextContent('degraded');
    await user.click(screen.getByRole('button', { name: 'first' }));
    const first = screen.getByRole('dialog', { name: 'Run first' });
    expect(within(first).queryByRole('link', { name: 'Compare with previous run' })).toBeNull();
    expect(first).toHaveTextContent('nothing before it to compare with');
  });
});

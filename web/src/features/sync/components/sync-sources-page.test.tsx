import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse, problemResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { SyncSourcesPage } from './sync-sources-page';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const srcId = '0190b1c2-0000-7000-8000-0000000000a1';

const syncRun = (over: Partial<Schemas['SyncRun']> = {}): Schemas['SyncRun'] => ({
  id: '0190b1c2-0000-7000-8000-0000000000b1',
  source_id: srcId,
  trigger: 'schedule',
  status: 'partial',
  started_at: '2025-01-01T00:00:00Z',
  ended_at: '2025-01-01T00:00:04Z',
  kind: 's3v2',
  pages: 2,
  imported: 12,
  unchanged: 30,
  skipped: 4,
  failed: 1,
  ...over,
});

const source = (over: Partial<Schemas['SyncSource']> = {}): Schemas['SyncSource'] => ({
  id: srcId,
  project_id: 'p',
  name: 'nightly bucket',
  url: 'https://storage.example/results?prefix=nightly/',
  kind: 's3v2',
  interval_minutes: 60,
  max_pages: 100,
  max_objects: 1000,
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:00Z',
  last_run: syncRun(),
  ...over,
});

const requests = (method: string, path: string) =>
  fetchMock.mock.calls.map(([r]) => r).filter((r) => r.method === method && new URL(r.url).pathname === path);

function renderPage(role: Schemas['Role'] | undefined = 'admin') {
  return renderRoutes([{ path: '/sync', element: <SyncSourcesPage role={role} /> }, { path: '/sync/:id', element: <p>detail</p> }], '/sync');
}

afterEach(() => fetchMock.mockReset());

describe('SyncSourcesPage', () => {
  it('lists the project sources with their last sync counts', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ items: [source(), source({ id: 'other', name: 'tsv', kind: 'tsv', interval_minutes: 0, last_run: undefined })] }));
    renderPage();
    const table = await screen.findByTestId('sync-sources');
    expect(new URL(requests('GET', '/api/v1/sync-sources')[0]!.url).searchParams.get('project')).toBe('default');

    const row = table.querySelector(`[data-source-id="${srcId}"]`) as HTMLElement;
    expect(within(row).getByRole('link', { name: 'nightly bucket' })).toHaveAttribute('href', `/sync/${srcId}`);
    expect(row).toHaveTextContent('https://storage.example/results?prefix=nightly/');
    expect(row).toHaveTextContent('s3v2');
    expect(row).toHaveTextContent('every 1 h');
    expect(within(row).getByTestId('sync-status')).toHaveTextContent('partial');
    expect(within(row).getByTestId('sync-counts')).toHaveTextContent('12 imported · 30 unchanged · 4 skipped · 1 failed');

    const other = table.querySelector('[data-source-id="other"]') as HTMLElement;
    expect(other).toHaveTextContent('on demand');
    expect(other).toHaveTextContent('never');
  });

  it('syncs now, disables the button and polls the sync every second until it ends', async () => {
    const started = syncRun({ id: 'sr-new', trigger: 'manual', status: 'running', ended_at: undefined, imported: 0, unchanged: 0, skipped: 0, failed: 0 });
    let polls = 0;
    fetchMock.mockImplementation(async (req) => {
      const p = new URL(req.url).pathname;
      if (req.method === 'POST' && p === `/api/v1/sync-sources/${srcId}/run`) return jsonResponse(started, 202);
      if (p === '/api/v1/sync-runs/sr-new') {
        polls++;
        return jsonResponse(polls < 2 ? { ...started, imported: 3 } : { ...started, status: 'succeeded', ended_at: '2025-01-01T00:01:00Z', imported: 5, unchanged: 2 });
      }
      return jsonResponse({ items: [source()] });
    });
    const user = userEvent.setup();
    renderPage();
    const button = await screen.findByRole('button', { name: 'Sync nightly bucket now' });
    await user.click(button);

    await waitFor(() => expect(button).toBeDisabled());
    expect(button).toHaveTextContent('Syncing…');
    expect(requests('POST', `/api/v1/sync-sources/${srcId}/run`)).toHaveLength(1);
    await waitFor(() => expect(screen.getByTestId('sync-counts')).toHaveTextContent('3 imported'));
    await waitFor(() => expect(screen.getByTestId('sync-status')).toHaveTextContent('succeeded'), { timeout: 3_000 });
    expect(screen.getByTestId('sync-counts')).toHaveTextContent('5 imported · 2 unchanged · 0 skipped · 0 failed');
    expect(polls).toBeGreaterThanOrEqual(2);
  });

  it('shows the 409 problem when a sync is already running', async () => {
    fetchMock.mockImplementation(async (req) =>
      req.method === 'POST'
        ? problemResponse({ type: 'https://barrage.dev/problems/conflict', title: 'Conflict', status: 409, detail: 'a sync of this source is running' }, 409)
        : jsonResponse({ items: [source()] }),
    );
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'Sync nightly bucket now' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('a sync of this source is running');
  });

  it('deletes a source only after the confirmation', async () => {
    fetchMock.mockImplementation(async (req) => (req.method === 'DELETE' ? new Response(null, { status: 204 }) : jsonResponse({ items: [source()] })));
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'Delete nightly bucket…' }));
    const confirm = screen.getByRole('group', { name: 'Confirm delete of nightly bucket' });
    expect(confirm).toHaveTextContent('Its imported runs stay');
    await user.click(within(confirm).getByRole('button', { name: 'Keep' }));
    expect(requests('DELETE', `/api/v1/sync-sources/${srcId}`)).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Delete nightly bucket…' }));
    await user.click(within(screen.getByRole('group', { name: /Confirm delete/ })).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(requests('DELETE', `/api/v1/sync-sources/${srcId}`)).toHaveLength(1));
  });

  it('adds a source and shows the API field errors next to their inputs', async () => {
    fetchMock.mockImplementation(async (req) =>
      req.method === 'POST'
        ? problemResponse(
            {
              type: 'https://barrage.dev/problems/validation',
              title: 'Validation failed',
              status: 422,
              detail: 'the source has invalid fields',
              errors: [
                { field: 'url', message: 'resolves to a private address not in the allow list' },
                { field: 'interval_minutes', message: 'must be at most 10080' },
                { field: 'max_pages', message: 'must be at least 1' },
              ],
            },
            422,
          )
        : jsonResponse({ items: [] }),
    );
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'Add source' }));
    const form = screen.getByRole('form', { name: 'Add a sync source' });
    await user.type(within(form).getByLabelText(/^Name/), 'lab');
    await user.type(within(form).getByLabelText(/^URL/), 'http://10.0.0.5/fortio/data/index.tsv');
    const interval = within(form).getByLabelText(/^Interval/);
    await user.clear(interval);
    await user.type(interval, '20000');
    await user.click(within(form).getByRole('button', { name: 'Add source' }));

    const url = within(form).getByLabelText(/^URL/);
    await waitFor(() => expect(url).toHaveAttribute('aria-invalid', 'true'));
    expect(url.closest('label')).toHaveTextContent('resolves to a private address not in the allow list');
    expect(url).toHaveAccessibleDescription(expect.stringContaining('resolves to a private address'));
    expect(interval.closest('label')).toHaveTextContent('must be at most 10080');
    expect(within(form).getByRole('alert')).toHaveTextContent('max_pages: must be at least 1');

    const [post] = requests('POST', '/api/v1/sync-sources');
    expect(await post!.json()).toEqual({ project: 'default', name: 'lab', url: 'http://10.0.0.5/fortio/data/index.tsv', interval_minutes: 20000 });
  });

  it('checks the form before calling the API', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ items: [] }));
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'Add source' }));
    const form = screen.getByRole('form', { name: 'Add a sync source' });
    await user.click(within(form).getByRole('button', { name: 'Add source' }));
    expect(within(form).getByLabelText(/^Name/).closest('label')).toHaveTextContent('is required');
    expect(requests('POST', '/api/v1/sync-sources')).toHaveLength(0);
  });

  it('lets a runner sync but not add or delete sources', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ items: [source()] }));
    renderPage('runner');
    expect(await screen.findByRole('button', { name: 'Sync nightly bucket now' })).toBeEnabled();
    expect(screen.queryByRole('button', { name: 'Add source' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete nightly bucket…' })).toBeNull();
  });

  it('shows a viewer the sources without any action', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ items: [source()] }));
    renderPage('viewer');
    const table = await screen.findByTestId('sync-sources');
    expect(table).toHaveTextContent('nightly bucket');
    expect(screen.queryByRole('button', { name: 'Add source' })).toBeNull();
    expect(within(table).queryByRole('button')).toBeNull();
  });
});

import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { SourceDetail } from './source-detail';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const srcId = 'src-1';

const syncRun = (id: string, over: Partial<Schemas['SyncRun']> = {}): Schemas['SyncRun'] => ({
  id,
  source_id: srcId,
  trigger: 'manual',
  status: 'partial',
  started_at: '2025-01-02T00:00:00Z',
  ended_at: '2025-01-02T00:00:04Z',
  kind: 'tsv',
  pages: 1,
  imported: 1,
  unchanged: 1,
  skipped: 1,
  failed: 1,
  ...over,
});

const source: Schemas['SyncSource'] = {
  id: srcId,
  project_id: 'p',
  name: 'fortio server',
  url: 'http://fortio.lab:8080/fortio/data/index.tsv',
  kind: 'tsv',
  interval_minutes: 15,
  max_pages: 100,
  max_objects: 1000,
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:00Z',
  last_run: syncRun('sr-2'),
};

const objects: Schemas['SyncObject'][] = [
  { url: 'http://fortio.lab:8080/fortio/data/a.json', size: 2048, md5: 'x', outcome: 'imported', run_id: 'run-a' },
  { url: 'http://fortio.lab:8080/fortio/data/b.json', size: 1024, outcome: 'unchanged', run_id: 'run-b' },
  { url: 'http://fortio.lab:8080/fortio/data/notes.txt', size: 10, outcome: 'skipped', reason: 'not a .json result' },
  { url: 'http://fortio.lab:8080/fortio/data/c.json', size: 99, outcome: 'failed', reason: 'size mismatch: listed 99, got 120' },
];

function stub() {
  fetchMock.mockImplementation(async (req) => {
    const p = new URL(req.url).pathname;
    if (p === `/api/v1/sync-sources/${srcId}`) return jsonResponse(source);
    if (p === `/api/v1/sync-sources/${srcId}/runs`) return jsonResponse({ items: [syncRun('sr-2'), syncRun('sr-1', { status: 'succeeded', failed: 0, started_at: '2025-01-01T00:00:00Z' })] });
    if (p === '/api/v1/sync-runs/sr-2') return jsonResponse({ ...syncRun('sr-2'), objects });
    if (p === '/api/v1/sync-runs/sr-1') return jsonResponse({ ...syncRun('sr-1', { status: 'succeeded' }), objects: [objects[1]] });
    return jsonResponse({}, 404);
  });
}

function renderDetail(onSelect = vi.fn(), selected?: string, role: Schemas['Role'] | undefined = 'admin') {
  renderRoutes(
    [{ path: '/sync/:id', element: <SourceDetail sourceId={srcId} selected={selected} onSelect={onSelect} onDeleted={() => {}} role={role} /> }],
    `/sync/${srcId}`,
  );
  return onSelect;
}

afterEach(() => fetchMock.mockReset());

describe('SourceDetail', () => {
  it('lists the latest syncs and the objects of the newest, with outcomes and run links', async () => {
    stub();
    const onSelect = renderDetail();
    expect(await screen.findByRole('heading', { name: 'fortio server' })).toBeInTheDocument();
    expect(screen.getByText('every 15 min')).toBeInTheDocument();

    const syncs = await screen.findByTestId('sync-runs');
    expect(syncs.querySelectorAll('[data-sync-run-id]')).toHaveLength(2);
    expect(syncs.querySelector('[data-sync-run-id="sr-2"]')).toHaveClass('selected');

    const table = await screen.findByTestId('sync-objects');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toHaveTextContent('a.json');
    expect(rows[0]).toHaveTextContent('2 KiB');
    expect(within(rows[0]!).getByText('imported')).toHaveClass('badge', 'ok');
    expect(within(rows[0]!).getByRole('link', { name: /Run imported from .*a\.json/ })).toHaveAttribute('href', '/runs/run-a');
    expect(within(rows[1]!).getByText('unchanged')).toHaveClass('badge', 'muted');
    expect(within(rows[1]!).getByRole('link')).toHaveAttribute('href', '/runs/run-b');
    expect(within(rows[2]!).getByText('skipped')).toBeInTheDocument();
    expect(rows[2]).toHaveTextContent('not a .json result');
    expect(within(rows[2]!).queryByRole('link')).toBeNull();
    expect(within(rows[3]!).getByText('failed')).toHaveClass('badge', 'bad');
    expect(rows[3]).toHaveTextContent('size mismatch: listed 99, got 120');

    await user().click(within(syncs.querySelector('[data-sync-run-id="sr-1"]') as HTMLElement).getByRole('button', { name: 'Show objects' }));
    expect(onSelect).toHaveBeenCalledWith('sr-1');
  });

  it('shows the objects of the sync chosen in the URL', async () => {
    stub();
    renderDetail(vi.fn(), 'sr-1');
    const table = await screen.findByTestId('sync-objects');
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(2));
    expect(table).toHaveTextContent('b.json');
  });

  it('offers sync and delete to an admin, sync to a runner and neither to a viewer', async () => {
    stub();
    renderDetail(vi.fn(), undefined, 'admin');
    expect(await screen.findByRole('button', { name: 'Sync fortio server now' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Delete fortio server…' })).toBeInTheDocument();
    cleanup();

    renderDetail(vi.fn(), undefined, 'runner');
    expect(await screen.findByRole('button', { name: 'Sync fortio server now' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete fortio server…' })).toBeNull();
    cleanup();

    renderDetail(vi.fn(), undefined, 'viewer');
    expect(await screen.findByRole('heading', { name: 'fortio server' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sync fortio server now' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete fortio server…' })).toBeNull();
  });
});

const user = () => userEvent.setup();

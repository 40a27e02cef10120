import { screen, within } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { RunView } from './run-view';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const id = '0190b1c2-0000-7000-8000-000000000001';

const lat = (p99: number): Schemas['LatencySummary'] => ({
  count: 1000, min_us: 400, avg_us: 1200, stddev_us: 300, p50_us: 1100, p75_us: 1400, p90_us: 2000, p99_us: p99, p999_us: 9000, max_us: 12000,
});

const run = (over: Partial<Schemas['Run']> = {}): Schemas['Run'] => ({
  id,
  project_id: 'p',
  name: 'nightly import',
  status: 'completed',
  source: 'import',
  spec: { url: 'http://t/' },
  thresholds: [],
  labels: {},
  target: 'http://t/',
  qps_requested: 0,
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:05Z',
  ended_at: '2025-01-01T00:00:05Z',
  shard_count: 0,
  degraded: false,
    pinned: false,
  ...over,
});

const importedResult: Schemas['RunResult'] = {
  run_id: id,
  status: 'completed',
  imported: true,
  origin: 'fortio-2025-01-01.json',
  buckets: [
    { start_us: 1000, end_us: 2000, count: 900 },
    { start_us: 0, end_us: 1000, count: 60 },
    { start_us: 2000, end_us: 5000, count: 40 },
  ],
  count: 1000,
  errors: 0,
  qps: 99.8,
  duration_seconds: 10,
  primary: 'service',
  service: lat(4500),
  ret_codes: { '200': 1000 },
  bytes_sent: 0,
  bytes_received: 0,
  shards: 0,
  lost_shards: 0,
  degraded: false,
};

function stub(r: Schemas['Run'], result: Schemas['RunResult']) {
  fetchMock.mockImplementation(async (req) => {
    const u = new URL(req.url);
    if (u.pathname === `/api/v1/runs/${id}`) return jsonResponse(r);
    if (u.pathname === `/api/v1/runs/${id}/result`) return jsonResponse(result);
    if (u.pathname === `/api/v1/runs/${id}/timeline`) {
      return jsonResponse({ run_id: id, seen: 3000, samples: [{ intended_us: 0, sent_us: 10, latency_us: 7000, code: '200', ok: true }] });
    }
    return jsonResponse({ items: [] });
  });
}

afterEach(() => fetchMock.mockReset());

describe('RunView of an imported run', () => {
  it('shows the document figures, the import notice, the buckets and the downloads', async () => {
    stub(run(), importedResult);
    renderRoutes([{ path: '/runs/:id', element: <RunView runId={id} /> }], `/runs/${id}`);

    const notice = await screen.findByTestId('imported-notice');
    expect(notice).toHaveTextContent('Imported from a Fortio result: figures as the document recorded them; no HDR histogram, so it cannot be merged losslessly');
    expect(await screen.findByText('fortio-2025-01-01.json')).toBeInTheDocument();

    expect(await screen.findByTestId('result-p99')).toHaveTextContent('4.5 ms');
    expect(screen.getByText('as the document recorded')).toBeInTheDocument();
    expect(screen.queryByText('Shards')).toBeNull();

    // Only the document's column, without response or lag.
    const pct = screen.getByRole('region', { name: 'Percentiles' });
    expect(within(pct).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Percentile', 'document']);
    expect(within(pct).getByRole('row', { name: /p99 / })).toHaveTextContent('4.5 ms');

    expect(screen.getByTestId('bucket-summary')).toHaveTextContent('3 buckets, 1,000 requests, from the document');
    expect(screen.queryByRole('region', { name: 'Per-second charts' })).toBeNull();
    expect(screen.queryByRole('region', { name: 'Latency histogram' })).toBeNull();

    expect(screen.getByRole('link', { name: 'Download Fortio JSON' })).toHaveAttribute('href', `/api/v1/runs/${id}/result?format=fortio`);
    expect(screen.getByRole('link', { name: 'Fortio CSV (histogram)' })).toHaveAttribute('href', `/api/v1/runs/${id}/result?format=fortio-csv`);

    const asked = fetchMock.mock.calls.map(([req]) => new URL(req.url).pathname);
    expect(asked).not.toContain(`/api/v1/runs/${id}/shards`);
    expect(asked).not.toContain(`/api/v1/runs/${id}/timeline`);
  });

  it('keeps the per-second charts and no notice for a native run', async () => {
    stub(run({ source: 'ui', shard_count: 1 }), { ...importedResult, imported: false, origin: undefined, buckets: undefined, primary: 'response', response: lat(7000), lag: lat(100) });
    renderRoutes([{ path: '/runs/:id', element: <RunView runId={id} /> }], `/runs/${id}`);
    expect(await screen.findByTestId('result-p99')).toHaveTextContent('7 ms');
    expect(await screen.findByRole('region', { name: 'Per-second charts' })).toBeInTheDocument();
    expect(screen.queryByTestId('imported-notice')).toBeNull();
    expect(await screen.findByTestId('timeline-note')).toHaveTextContent('1 of 3,000 requests sampled · 0 errors');
    for (const [name, format] of [
      ['CSV (percentiles)', 'csv'],
      ['Fortio CSV (histogram)', 'fortio-csv'],
      ['Prometheus text', 'prometheus'],
      ['YAML', 'yaml'],
    ]) {
      expect(screen.getByRole('link', { name, hidden: true })).toHaveAttribute('href', `/api/v1/runs/${id}/result?format=${format}`);
    }
  });
});

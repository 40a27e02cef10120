import { jsonResponse } from '@/testing/fetch-stub';
import { listRuns, serializeRunsQuery } from './list-runs';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

afterEach(() => fetchMock.mockReset());

describe('serializeRunsQuery', () => {
  it('sends status comma-separated and label repeated', () => {
    expect(serializeRunsQuery({ project: 'default', status: ['running', 'queued'], label: ['a=1', 'b=2'], cursor: 'c1', limit: 50 })).toBe(
      'project=default&status=running%2Cqueued&label=a%3D1&label=b%3D2&cursor=c1&limit=50',
    );
    expect(serializeRunsQuery({})).toBe('');
  });

  it('leaves out empty values', () => {
    expect(serializeRunsQuery({ project: '', test: '', status: [], label: [], limit: 20 })).toBe('limit=20');
  });
});

describe('listRuns', () => {
  it('asks GET /runs with the query serialized as the API documents it', async () => {
    const page = { items: [], next_cursor: 'c2' };
    fetchMock.mockResolvedValue(jsonResponse(page));
    expect(await listRuns({ project: 'p', status: ['completed'], label: ['a=1', 'b=2'], limit: 30 })).toEqual(page);
    const [req] = fetchMock.mock.calls[0]!;
    const url = new URL(req.url);
    expect([req.method, url.pathname, url.search]).toEqual(['GET', '/api/v1/runs', '?project=p&status=completed&label=a%3D1&label=b%3D2&limit=30']);
  });
});

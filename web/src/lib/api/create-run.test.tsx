import { jsonResponse } from '@/testing/fetch-stub';
import { createRun } from './create-run';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

afterEach(() => fetchMock.mockReset());

describe('createRun', () => {
  it('posts the body, with the Idempotency-Key only when given', async () => {
    const run = { id: 'r1', status: 'queued' };
    fetchMock.mockImplementation(async () => jsonResponse(run, 201));
    expect(await createRun({ body: { test: 't1', source: 'ui' }, idempotencyKey: 'k1' })).toEqual(run);
    expect(await createRun({ body: { test: 't1', source: 'ui' } })).toEqual(run);
    const sent = await Promise.all(
      fetchMock.mock.calls.map(async ([r]) => [r.method, new URL(r.url).pathname, r.headers.get('Idempotency-Key'), await r.clone().json()]),
    );
    expect(sent).toEqual([
      ['POST', '/api/v1/runs', 'k1', { test: 't1', source: 'ui' }],
      ['POST', '/api/v1/runs', null, { test: 't1', source: 'ui' }],
    ]);
  });
});

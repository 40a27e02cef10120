import { api } from '../api-client';
import { getTest } from './get-test';

describe('getTest', () => {
  afterEach(() => vi.restoreAllMocks());

  it('asks GET /tests/{test} for the id, with the signal when given', async () => {
    const test = { id: 't1', name: 'checkout' };
    const get = vi.spyOn(api, 'GET').mockResolvedValue({ data: test, response: new Response(null, { status: 200 }) } as never);
    const signal = new AbortController().signal;
    expect(await getTest('t1', signal)).toEqual(test);
    expect(await getTest('t1')).toEqual(test);
    expect(get.mock.calls).toEqual([
      ['/tests/{test}', { params: { path: { test: 't1' } }, signal }],
      ['/tests/{test}', { params: { path: { test: 't1' } }, signal: undefined }],
    ]);
  });
});

import { api } from '../api-client';
import { listTests } from './list-tests';

describe('listTests', () => {
  afterEach(() => vi.restoreAllMocks());

  it('asks GET /tests with the query and signal it is given', async () => {
    const page = { items: [], next_cursor: 'c2' };
    const get = vi.spyOn(api, 'GET').mockResolvedValue({ data: page, response: new Response(null, { status: 200 }) } as never);
    const signal = new AbortController().signal;
    expect(await listTests({ project: 'p', cursor: 'c1', limit: 50 }, signal)).toEqual(page);
    expect(get).toHaveBeenCalledWith('/tests', { params: { query: { project: 'p', cursor: 'c1', limit: 50 } }, signal });
  });

  it('throws the problem of a refused call', async () => {
    const problem = { type: 'about:blank', title: 'Forbidden', status: 403 };
    vi.spyOn(api, 'GET').mockResolvedValue({ error: problem, response: new Response(null, { status: 403 }) } as never);
    await expect(listTests({ limit: 200 })).rejects.toMatchObject({ name: 'ApiError', status: 403 });
  });
});

import { api, type Schemas } from '../api-client';
import { createTest } from './create-test';

describe('createTest', () => {
  afterEach(() => vi.restoreAllMocks());

  it('posts the body to /tests and returns the stored test', async () => {
    const stored = { id: 't1', name: 'checkout' };
    const post = vi.spyOn(api, 'POST').mockResolvedValue({ data: stored, response: new Response(null, { status: 201 }) } as never);
    const body = { project: 'p', name: 'checkout', spec: { url: 'http://echo/' } } as unknown as Schemas['TestCreate'];
    expect(await createTest(body)).toEqual(stored);
    expect(post).toHaveBeenCalledWith('/tests', { body });
  });
});

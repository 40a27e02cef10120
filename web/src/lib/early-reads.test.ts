import { firstReads, startEarlyReads, takeEarly } from './early-reads';

const origin = 'http://barrage.test';
const run = '01a2240d-be7e-77dd-979a-08663b0f9609';

describe('firstReads', () => {
  it('reads the sign-in check on every page, and a run page its run, result and histogram', () => {
    expect(firstReads('/runs')).toEqual(['/api/v1/me', '/api/v1/auth/methods']);
    expect(firstReads('/sign-in')).toEqual(['/api/v1/auth/methods']);
    expect(firstReads(`/runs/${run}`)).toEqual([
      '/api/v1/me',
      '/api/v1/auth/methods',
      `/api/v1/runs/${run}`,
      `/api/v1/runs/${run}/result?format=barrage`,
      `/api/v1/runs/${run}/result?format=fortio`,
    ]);
    // Not a run's id: no run reads.
    expect(firstReads('/runs/new')).toHaveLength(2);
    expect(firstReads(`/runs/${run}/x`)).toHaveLength(2);
  });
});

describe('takeEarly', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('gives each early answer out once, to a GET of the same URL, while it is fresh', async () => {
    const asked: string[] = [];
    vi.stubGlobal('fetch', (url: string) => {
      asked.push(url);
      return Promise.resolve(new Response(url));
    });
    startEarlyReads(origin, `/runs/${run}`, 1_000);
    expect(asked).toHaveLength(5);
    expect(asked).toContain(`${origin}/api/v1/runs/${run}/result?format=fortio`);

    // Another query, or a POST, is not the same read.
    expect(takeEarly(new Request(`${origin}/api/v1/runs/${run}/result?format=csv`), 1_100)).toBeUndefined();
    expect(takeEarly(new Request(`${origin}/api/v1/me`, { method: 'POST' }), 1_100)).toBeUndefined();

    const me = takeEarly(new Request(`${origin}/api/v1/me`), 1_100);
    expect(await (await me!).text()).toBe(`${origin}/api/v1/me`);
    expect(takeEarly(new Request(`${origin}/api/v1/me`), 1_200)).toBeUndefined();

    // Past ten seconds the page asks again.
    expect(takeEarly(new Request(`${origin}/api/v1/runs/${run}`), 11_001)).toBeUndefined();
    expect(takeEarly(new Request(`${origin}/api/v1/runs/${run}/result?format=barrage`), 11_000)).toBeDefined();
  });

  it('leaves an early read that failed to the page that takes it', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('network down')));
    startEarlyReads(origin, '/runs', 0);
    await expect(takeEarly(new Request(`${origin}/api/v1/me`), 1)!).rejects.toThrow('network down');
  });
});

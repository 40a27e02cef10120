import { expect, test, type APIRequestContext } from '@playwright/test';
import { port } from '../playwright.config';
import { adminEmail, adminPassword } from './sign-in';

// What a page's first screen needs is announced in its index.html
// (services/api/internal/httpapi/first_screen.go, from src/first-screen.json):
// the route's chunks as modulepreload and its first API reads as fetch
// preloads, so that both load beside the main bundle. The page's own early
// reads (src/lib/early-reads.ts) must then be answered from those preloads:
// the API serves each read once, as its request counter shows. The first
// screen draws no Recharts chart, so Recharts is neither announced nor
// needed for it: with its chunks held back, the first screen still draws;
// the charts further down draw once they come. The runs list then loads the
// run page's code before any run is clicked.
//
// Tagged @own-stack: it adds a run to the default project, which other specs
// count from empty, so make e2e runs it on a stack of its own.

const echo = `http://127.0.0.1:${port + 1}/`;

/** recharts tells a chunk of Recharts' core by a class name its charts draw. */
const recharts = 'recharts-cartesian-grid';

/** served reads barrage_http_requests_total of GETs by route from the API's /metrics. */
async function served(req: APIRequestContext): Promise<Map<string, number>> {
  const res = await req.get('/metrics');
  expect(res.status()).toBe(200);
  const counts = new Map<string, number>();
  for (const m of (await res.text()).matchAll(/^barrage_http_requests_total\{([^}]*)\} (\d+)$/gm)) {
    const labels = m[1]!;
    const route = /route="([^"]*)"/.exec(labels)?.[1];
    if (route && labels.includes('method="GET"')) counts.set(route, (counts.get(route) ?? 0) + Number(m[2]));
  }
  return counts;
}

test("a run's page: its chunks and reads are announced in index.html, and each read is served once @own-stack", async ({ page, browser }) => {
  test.setTimeout(90_000);
  const req = page.request;
  expect((await req.post('/api/v1/auth/login', { data: { email: adminEmail, password: adminPassword } })).status()).toBe(200);
  const res = await req.post('/api/v1/runs', { data: { project: 'default', name: 'first screen', spec: { url: echo, qps: 50, connections: 2, duration: '1s' } } });
  expect(res.status(), await res.text()).toBe(201);
  const id = ((await res.json()) as { id: string }).id;
  await expect
    .poll(async () => ((await (await req.get(`/api/v1/runs/${id}`)).json()) as { status: string }).status, { timeout: 60_000 })
    .toBe('completed');

  // The page as served: the run route's chunk and the five reads, in the head.
  const html = await (await req.get(`/runs/${id}`)).text();
  const head = html.slice(0, html.indexOf('</head>'));
  const modules = [...head.matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)">/g)].map((m) => m[1]!);
  // The route's own chunk: run- and a hash of 8 (not run-name-… or run-filters-…).
  const run = modules.find((m) => /^\/assets\/run-[\w-]{8}\.js$/.test(m));
  expect(run, modules.join(' ')).toBeDefined();
  for (const m of modules) expect((await (await req.get(m)).text()).includes(recharts), `${m} is announced and holds Recharts`).toBe(false);
  const reads = [...head.matchAll(/<link rel="preload" as="fetch" crossorigin href="([^"]+)">/g)].map((m) => m[1]);
  expect(reads).toEqual([
    '/api/v1/me',
    '/api/v1/auth/methods',
    `/api/v1/runs/${id}`,
    `/api/v1/runs/${id}/result?format=barrage`,
    `/api/v1/runs/${id}/result?format=fortio`,
  ]);

  const chunks: string[] = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith('/assets/') && path.endsWith('.js')) chunks.push(path);
  });
  // Every chunk of Recharts' core is held back until the first screen has drawn: the page draws it without them.
  let release = () => {};
  const released = new Promise<void>((r) => (release = r));
  const held: string[] = [];
  await page.route('**/assets/*.js', async (route) => {
    const res = await route.fetch();
    const body = await res.text();
    if (body.includes(recharts)) {
      held.push(new URL(route.request().url()).pathname);
      await released;
    }
    await route.fulfill({ response: res, body });
  });
  const before = await served(req);
  await page.goto(`/runs/${id}`);
  try {
    await expect(page.getByRole('heading', { name: 'first screen' }), 'the first screen draws without Recharts').toBeVisible();
    await expect(page.getByRole('region', { name: 'Result summary' })).toBeVisible();
    await expect(page.locator('.run-histogram-bars rect').first()).toBeVisible();
  } finally {
    release();
  }
  const after = await served(req);
  const delta = (route: string) => (after.get(route) ?? 0) - (before.get(route) ?? 0);

  // Each read once: the preload's request, which the early read and then the page took.
  expect(delta('/api/v1/me')).toBe(1);
  expect(delta('/api/v1/auth/methods')).toBe(1);
  expect(delta('/api/v1/runs/:run')).toBe(1);
  expect(delta('/api/v1/runs/:run/result')).toBe(2); // the result and its Fortio histogram
  // Every announced chunk was loaded, each once.
  for (const m of modules) expect(chunks.filter((c) => c === m)).toHaveLength(1);
  // The per-second charts draw with Recharts once a scroll brings them near.
  const qps = page.getByRole('region', { name: 'Requests per second' });
  await qps.scrollIntoViewIfNeeded();
  await expect(qps.locator('.chart')).toHaveAttribute('data-drawn', 'yes');
  await expect(qps.locator('.recharts-wrapper svg.recharts-surface')).toBeVisible();
  expect(held.length, 'a chunk of Recharts was loaded for the charts').toBeGreaterThan(0);
  await page.unroute('**/assets/*.js');

  // The runs list loads the run page's code once it is up, before any click.
  // A fresh context: nothing of the dashboard cached.
  const fresh = await browser.newContext({ baseURL: `http://127.0.0.1:${port}`, storageState: await page.context().storageState() });
  const list = await fresh.newPage();
  const asked: string[] = [];
  list.on('request', (r) => asked.push(new URL(r.url()).pathname));
  await list.goto('/runs');
  await expect(list.getByRole('link', { name: 'first screen' })).toBeVisible();
  await expect.poll(() => asked.includes(run!)).toBe(true);
  await fresh.close();
});

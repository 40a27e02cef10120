import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { runName } from '../src/lib/run-name';
import { port } from '../playwright.config';

// axe on every page of the dashboard, against the real stack with real data:
// each route under src/app/routes is visited once its content is shown, and
// no serious or critical violation of any axe rule is allowed. The data
// (runs, a test, a search, a sync source, an echo profile, a token, a user) is
// made through the API first. An unnamed run is named the same way (its date
// and id tail) on every page that shows it.
//
// Tagged @own-stack: it fills the default project, which other specs count
// from empty, so make e2e runs it on a stack of its own.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/`;

type Run = { id: string; name: string; status: string; created_at: string };

/** scan runs axe on the page as it is and returns its serious and critical violations, one line each. */
async function scan(page: Page): Promise<string[]> {
  const res = await new AxeBuilder({ page }).analyze();
  return res.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}: ${n.failureSummary?.replace(/\s+/g, ' ') ?? v.help}`));
}

/** visit opens path, waits for what shows its content, and checks it with axe (softly: every page is reported). */
async function visit(page: Page, path: string, ready: (page: Page) => Locator | Promise<void>) {
  await test.step(`axe ${path}`, async () => {
    await page.goto(path);
    const r = await ready(page);
    if (r) await expect(r.first()).toBeVisible();
    expect.soft(await scan(page), `axe violations on ${path}`).toEqual([]);
  });
}

async function post<T>(req: APIRequestContext, path: string, data: unknown, status = 201): Promise<T> {
  const res = await req.post(path, { data });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(status);
  return (await res.json()) as T;
}

async function waitStatus(req: APIRequestContext, id: string, want: RegExp) {
  await expect.poll(async () => ((await (await req.get(`/api/v1/runs/${id}`)).json()) as Run).status, { timeout: 60_000 }).toMatch(want);
}

const h1 = (name: string | RegExp) => (p: Page) => p.getByRole('heading', { level: 1, name });

test('axe finds no serious or critical violation on any page @own-stack', async ({ browser, page }) => {
  test.setTimeout(360_000); // some 35 pages, each scanned once its data is in
  // Signed out: the sign-in page.
  const anonContext = await browser.newContext();
  await visit(await anonContext.newPage(), '/sign-in', h1('Sign in to Barrage'));
  await anonContext.close();

  expect((await page.request.post('/api/v1/auth/login', { data: { email, password } })).status()).toBe(200);
  const req = page.request;

  // Data: a passing run with thresholds, an unnamed run with errors, a test run once.
  const named = await post<Run>(req, '/api/v1/runs', {
    project: 'default', name: 'a11y baseline', labels: { suite: 'a11y' },
    spec: { url: echo, qps: 100, duration: '2s', connections: 2 }, thresholds: ['p(99) < 5s', 'error_rate < 50%'],
  });
  const unnamed = await post<Run>(req, '/api/v1/runs', {
    project: 'default', spec: { url: `${echo}?status=503:20`, qps: 100, duration: '2s', connections: 2, agents: { count: 2 } },
  });
  const testDef = await post<{ id: string }>(req, '/api/v1/tests', {
    project: 'default', name: 'a11y smoke', spec: { url: echo, qps: 50, duration: '1s' }, schedule: '0 3 * * 1-5', timezone: 'UTC',
  });
  const testRun = await post<Run>(req, '/api/v1/runs', { test: testDef.id });
  for (const r of [named, unnamed, testRun]) await waitStatus(req, r.id, /^completed$/);

  // A capacity search over a few 1 s steps, an echo profile, a token, a user who is a member.
  const search = await post<{ id: string }>(req, '/api/v1/searches', {
    project: 'default', name: 'a11y search', spec: { url: echo, connections: 2 }, objective: 'p(99) < 5s and error_rate < 1%',
    min_qps: 20, max_qps: 80, step_duration: '1s', warmup: '1s', resolution: 0.5,
  });
  await post(req, '/api/v1/echo-profiles', { project: 'default', name: 'a11y slow', content: 'delay=5ms:10&status=503:1' });
  await post(req, '/api/v1/tokens', { project: 'default', name: 'a11y token', role: 'viewer' });
  const { user } = await post<{ user: { id: string } }>(req, '/api/v1/users', { email: 'a11y@barrage.test', name: 'A11y Viewer' });
  expect((await req.put(`/api/v1/projects/default/members/${user.id}`, { data: { role: 'viewer' } })).status()).toBe(200);

  // A sync source reading our own published results, synced once.
  const patched = await req.patch('/api/v1/projects/default', { data: { public_results: true, target_allow_list: ['127.0.0.1'] } });
  expect(patched.status(), await patched.text()).toBe(200);
  const source = await post<{ id: string }>(req, '/api/v1/sync-sources', {
    project: 'default', name: 'a11y self', url: `http://127.0.0.1:${port}/fortio/data/index.tsv`,
  });
  await post(req, `/api/v1/sync-sources/${source.id}/run`, {}, 202);

  await expect
    .poll(async () => ((await (await req.get(`/api/v1/searches/${search.id}`)).json()) as { status: string }).status, { timeout: 90_000 })
    .not.toBe('running');

  // The unnamed run has one name: its creation date and id tail, on every page that lists it.
  const unnamedName = runName(unnamed);
  expect(unnamedName).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d · [0-9a-f]{6}$/);
  expect(unnamedName.endsWith(unnamed.id.slice(-6))).toBe(true);

  await visit(page, '/runs', (p) => p.getByTestId('runs-table').locator('[data-run-id]').nth(2));
  await expect(page.getByTestId('runs-table').getByRole('link', { name: unnamedName, exact: true })).toBeVisible();
  await expect(page.getByLabel(`Select ${unnamedName} to compare`)).toBeVisible();

  await visit(page, `/runs/${unnamed.id}`, (p) => p.getByTestId('run-status').filter({ hasText: 'completed' }));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(unnamedName);
  await expect(page.getByRole('region', { name: 'Latency histogram' }).locator('svg.chart-svg')).toBeVisible();

  await visit(page, `/runs/${named.id}`, (p) => p.getByTestId('run-verdict'));

  // A chart's table view opens from the keyboard and holds the chart's rows.
  const qps = page.getByRole('region', { name: 'Requests per second', exact: true });
  await qps.getByText('Table view').focus();
  await page.keyboard.press('Enter');
  const qpsTable = qps.getByRole('region', { name: 'Requests per second, table view' }).getByRole('table');
  await expect(qpsTable.locator('tbody tr')).not.toHaveCount(0);
  // A busy host may flag seconds generator limited, which adds their column.
  const heads = await qpsTable.locator('thead th').allTextContents();
  expect([['Second', 'Achieved qps', 'Target qps'], ['Second', 'Achieved qps', 'Target qps', 'Generator limited']]).toContainEqual(heads);
  expect.soft(await scan(page), 'axe violations with a table view open').toEqual([]);

  await visit(page, '/runs/new', (p) => p.getByTestId('start-run'));
  await visit(page, `/compare?ids=${named.id},${unnamed.id}`, async (p) => {
    // Below the first screen, the spectrum is drawn once scrolled to (chart-area.tsx).
    await p.getByTestId('spectrum').scrollIntoViewIfNeeded();
    await expect(p.getByTestId('spectrum').locator('.recharts-line-curve').nth(1)).toBeVisible();
  });
  await visit(page, '/compare', h1('Compare runs'));
  await visit(page, '/tests', (p) => p.getByRole('link', { name: 'a11y smoke' }));
  await visit(page, '/tests?new=1', (p) => p.getByRole('button', { name: /create/i }));
  await visit(page, `/tests/${testDef.id}`, (p) => p.getByTestId('test-trend'));
  await visit(page, '/searches', (p) => p.getByRole('link', { name: 'a11y search' }));
  await visit(page, `/searches/${search.id}`, (p) => p.getByTestId('search-step-chart'));
  await visit(page, '/sync', (p) => p.getByTestId('sync-sources').getByTestId('sync-status').filter({ hasText: /succeeded|partial|failed/ }));
  await visit(page, `/sync/${source.id}`, (p) => p.getByTestId('sync-objects'));
  await visit(page, '/settings', h1('Settings'));
  await visit(page, '/agents', (p) => p.getByTestId('agents-live').filter({ hasText: /^2 of 2 live/ }));
  await visit(page, '/users', (p) => p.getByRole('cell', { name: 'a11y@barrage.test' }));
  await visit(page, '/members', (p) => p.getByRole('cell', { name: 'a11y@barrage.test' }));
  await visit(page, '/tokens', (p) => p.getByRole('cell', { name: 'a11y token' }));
  await visit(page, '/audit', (p) => p.getByRole('table', { name: 'Audit log' }).locator('tbody tr'));
  await visit(page, '/echo-profiles', (p) => p.getByRole('cell', { name: 'a11y slow' }));
  await visit(page, '/no-such-page', h1('No such page'));

  // A run while it is live.
  const live = await post<Run>(req, '/api/v1/runs', { project: 'default', name: 'a11y live', spec: { url: echo, qps: 50, duration: '20s' } });
  await visit(page, `/runs/${live.id}`, (p) => p.getByTestId('run-status').filter({ hasText: 'running' }));
  await expect(page.getByTestId('live-points')).not.toHaveText(/^0 seconds/);
  expect.soft(await scan(page), 'axe violations on the live run page').toEqual([]);
  await req.post(`/api/v1/runs/${live.id}/stop`);

  // The dark theme has its own colours: the pages with the most of them, again.
  const dark = await browser.newContext({ colorScheme: 'dark', storageState: await page.context().storageState() });
  const dp = await dark.newPage();
  await visit(dp, '/runs', (p) => p.getByTestId('runs-table').locator('[data-run-id]').nth(3));
  await visit(dp, `/runs/${unnamed.id}`, (p) => p.getByTestId('run-status').filter({ hasText: 'completed' }));
  await visit(dp, `/runs/${named.id}`, (p) => p.getByTestId('run-verdict'));
  await visit(dp, '/runs/new', (p) => p.getByTestId('start-run'));
  await visit(dp, `/tests/${testDef.id}`, (p) => p.getByTestId('test-trend'));
  await visit(dp, `/searches/${search.id}`, (p) => p.getByTestId('search-step-chart'));
  await visit(dp, `/sync/${source.id}`, (p) => p.getByTestId('sync-objects'));
  await visit(dp, '/settings', h1('Settings'));
  await visit(dp, '/users', (p) => p.getByRole('cell', { name: 'a11y@barrage.test' }));
  await dark.close();
});

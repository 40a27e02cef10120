import { mkdirSync, readFileSync } from 'node:fs';
import { drawCharts } from './charts';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { formatCount } from '../src/lib/format';
import { port } from '../playwright.config';

// One story through the dashboard against the real stack: sign in, start a
// run from the form, watch it live, read its result, compare two runs.
// Every page is saved to e2e/screenshots/.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/`;
const shots = 'e2e/screenshots';
mkdirSync(shots, { recursive: true });

test.describe.configure({ mode: 'serial' });

async function shot(page: Page, name: string) {
  await drawCharts(page);
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
}

type Run = { id: string; status: string };
type Result = { count: number; qps: number };

/** startRun starts a run through the API (the page's cookie jar signs it). */
async function startRun(req: APIRequestContext, name: string, spec: Record<string, unknown>): Promise<string> {
  const res = await req.post('/api/v1/runs', { data: { project: 'default', name, spec, source: 'api', labels: { suite: 'e2e' } } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as Run).id;
}

async function waitCompleted(req: APIRequestContext, id: string): Promise<Result> {
  await expect
    .poll(async () => ((await (await req.get(`/api/v1/runs/${id}`)).json()) as Run).status, { timeout: 60_000 })
    .toBe('completed');
  const res = await req.get(`/api/v1/runs/${id}/result`);
  expect(res.status()).toBe(200);
  return (await res.json()) as Result;
}

test('sign in, start a run, watch it live, read the result, compare two runs', async ({ page }) => {
  await page.goto('/runs');
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await shot(page, 'sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('wrong-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  // Keyboard only: the password field, then Enter submits.
  await page.getByLabel('Password').fill('');
  await page.getByLabel('Email').focus();
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/runs$/);

  await page.goto('/agents');
  await expect(page.getByTestId('agents-live')).toHaveText(/^2 of 2 live/, { timeout: 30_000 });
  await shot(page, 'agents');

  // A bad value comes back from the API as a field error next to the field.
  await page.goto('/runs/new');
  await page.locator('[name="url"]').fill('ftp://127.0.0.1/');
  await page.getByTestId('start-run').click();
  await expect(page.locator('[name="url"]')).toHaveAttribute('aria-invalid', 'true');

  await page.locator('[name="url"]').fill(echo);
  await page.locator('[name="qps"]').fill('200');
  await page.locator('[name="connections"]').fill('4');
  await page.locator('[name="duration"]').fill('5s');
  await page.locator('[name="agents.count"]').fill('2');
  await page.locator('[name="thresholds"]').fill('p(99) < 10s\ncount >= 900\nerror_rate == 0');
  await shot(page, 'new-run');
  await page.getByTestId('start-run').click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const first = page.url().split('/').pop()!;

  // The live chart gains points while the run goes on.
  const points = page.getByTestId('live-points');
  const seen = async () => Number((await points.textContent())?.match(/\d+/)?.[0] ?? 0);
  await expect.poll(seen, { timeout: 20_000 }).toBeGreaterThan(0);
  const early = await seen();
  await expect(page.getByTestId('live-chart')).toBeVisible();
  await shot(page, 'run-live');
  await expect.poll(seen, { timeout: 20_000 }).toBeGreaterThan(early);

  const result = await waitCompleted(page.request, first);
  expect(result.count).toBeGreaterThanOrEqual(990);
  expect(result.count).toBeLessThanOrEqual(1010);
  await expect(page.getByTestId('run-status')).toHaveText(/completed/i, { timeout: 20_000 });
  await expect(page.getByTestId('result-count')).toHaveText(formatCount(result.count));
  // Both agents' shards are listed, each done.
  await expect(page.getByTestId('run-shards').getByTestId('shard-status')).toHaveText(['done', 'done']);
  await expect(page.getByTestId('run-thresholds').getByTestId('threshold-outcome')).toHaveText(['pass', 'pass', 'pass']);
  await expect(page.getByTestId('run-verdict')).toHaveText('verdict: pass');
  await shot(page, 'run-result');

  const second = await startRun(page.request, 'e2e slower', { url: `${echo}?delay=2ms`, qps: 100, duration: '3s', connections: 2 });
  const third = await startRun(page.request, 'e2e faster', { url: echo, qps: 300, duration: '3s', connections: 4, agents: { count: 2 } });
  const results = [result, await waitCompleted(page.request, second), await waitCompleted(page.request, third)];

  await page.goto('/runs');
  await expect(page.getByTestId('runs-table').locator('[data-run-id]')).toHaveCount(3);
  await shot(page, 'runs');

  // The runs feature end to end: open a run from the list, back to the
  // list, pick two runs there and compare them. The run page's histogram
  // reads the run's Fortio result.
  await page.getByTestId('runs-table').getByRole('link', { name: 'e2e slower' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${second}$`));
  await expect(page.getByTestId('run-status')).toHaveText(/completed/i);
  await expect(page.getByTestId('result-count')).toHaveText(formatCount(results[1]!.count));
  const histogram = page.getByRole('region', { name: 'Latency histogram' });
  await expect(histogram.locator('svg.chart-svg')).toBeVisible();
  await expect(histogram).not.toContainText('No latencies recorded');
  await page.goBack();
  await expect(page).toHaveURL(/\/runs$/);
  await page.getByLabel('Select e2e slower to compare').check();
  await page.getByLabel('Select e2e faster to compare').check();
  await page.getByRole('button', { name: 'Compare (2)' }).click();
  await expect(page).toHaveURL(new RegExp(`/compare\\?ids=(${second},${third}|${third},${second})$`));
  for (const [i, id] of [[1, second], [2, third]] as const) {
    await expect(page.getByTestId(`compare-count-${id}`)).toHaveText(new RegExp(`^${formatCount(results[i]!.count)}(?![\\d,])`));
  }
  // The compare page itself (its layout, numbers and shots) is e2e/compare.spec.ts.
  await expect(page.getByTestId('compare-layout')).toBeVisible();
  await expect(page.getByTestId('compare-table')).toContainText('e2e slower');
  await expect(page.getByTestId('compare-table')).toContainText('e2e faster');
});

test('tests page, dark theme and a phone-width runs list', async ({ browser }) => {
  const ctx = await browser.newContext({ colorScheme: 'dark' });
  const page = await ctx.newPage();
  const login = await page.request.post('/api/v1/auth/login', { data: { email, password } });
  expect(login.status()).toBe(200);

  const created = await page.request.post('/api/v1/tests', {
    data: {
      project: 'default', name: 'e2e echo smoke', spec: { url: echo, qps: 50, duration: '2s' }, labels: { suite: 'e2e' },
      schedule: '0 3 * * 1-5', timezone: 'Europe/Paris',
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const testId = ((await created.json()) as { id: string }).id;

  await page.goto('/tests');
  await expect(page.getByRole('link', { name: 'e2e echo smoke' })).toBeVisible();
  await shot(page, 'tests');
  await page.goto(`/tests/${testId}`);
  await expect(page.getByRole('heading', { name: 'e2e echo smoke' })).toBeVisible();
  await expect(page.getByText('0 3 * * 1-5')).toBeVisible();
  await shot(page, 'test');

  const runs = await page.request.get('/api/v1/runs?limit=1');
  const last = ((await runs.json()) as { items: Run[] }).items[0]!;
  await page.goto(`/runs/${last.id}`);
  await expect(page.getByTestId('run-status')).toHaveText(/completed/i);
  await shot(page, 'run-result-dark');

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/runs');
  await expect(page.getByTestId('runs-table')).toBeVisible();
  await shot(page, 'runs-phone');
  await ctx.close();
});

test('import a Fortio result, then sync the public results into the page', async ({ page }) => {
  const login = await page.request.post('/api/v1/auth/login', { data: { email, password } });
  expect(login.status()).toBe(200);

  // A real `fortio load -json` document, imported through the runs page.
  await page.goto('/runs');
  await page.getByLabel('Import Fortio JSON files').setInputFiles('../pkg/fortiojson/testdata/http_duration.json');
  const imports = page.getByRole('list', { name: 'Imports' });
  await expect(imports).toContainText('http_duration.json: imported as');
  await imports.getByRole('link').first().click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const doc = JSON.parse(readFileSync('../pkg/fortiojson/testdata/http_duration.json', 'utf8')) as { DurationHistogram: { Count: number } };
  await expect(page.getByTestId('imported-notice')).toContainText('no HDR histogram');
  await expect(page.getByTestId('bucket-summary')).toContainText(`${formatCount(doc.DurationHistogram.Count)} requests`);
  await shot(page, 'run-imported');

  // Publish the project's results and sync them back from our own index.tsv.
  const patched = await page.request.patch('/api/v1/projects/default', { data: { public_results: true, target_allow_list: ['127.0.0.1'] } });
  expect(patched.status(), await patched.text()).toBe(200);
  await page.goto('/sync');
  await page.getByRole('button', { name: 'Add source' }).click();
  const form = page.getByRole('form', { name: 'Add a sync source' });
  await form.getByLabel('Name').fill('self');
  await form.getByLabel('URL').fill(`http://127.0.0.1:${port}/fortio/data/index.tsv`);
  await form.getByRole('button', { name: 'Add source' }).click();
  await expect(page.getByTestId('sync-sources')).toContainText('self');
  await page.getByRole('button', { name: 'Sync self now' }).click();
  // Every completed run so far (three native, one imported) is new to the sync.
  await expect(page.getByTestId('sync-sources').getByTestId('sync-status')).toHaveText(/succeeded/, { timeout: 30_000 });
  await expect(page.getByTestId('sync-sources').getByTestId('sync-counts')).toContainText('4 imported');
  await shot(page, 'sync');
  await page.getByTestId('sync-sources').getByRole('link', { name: 'self' }).click();
  await expect(page.getByTestId('sync-objects').getByRole('row')).toHaveCount(5);
  await shot(page, 'sync-source');
  await page.goto('/settings');
  await expect(page.getByRole('link', { name: /fortio\/data\/index\.tsv\?project=default/ })).toBeVisible();
  await shot(page, 'settings');
});

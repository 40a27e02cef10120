import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type Download, type Page } from '@playwright/test';
import { port } from '../playwright.config';

// Taking a run away and sharing a view of it, against the real stack: the
// run's per-second data as CSV and its result as JSON, each the API's
// figures; and permalinks: the toggles of the run page (latency chart,
// spectrum, histogram axis, result codes) and of the compare page's
// spectrum are kept in the URL, so a copied link opens the same view.
//
// Tagged @own-stack: it adds runs to the default project, which other specs
// count from empty, so make e2e runs it on a stack of its own.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/`;

type Latency = { p50_us: number; p90_us: number; p99_us: number; max_us: number };
type Interval = { second: number; count: number; errors: number; qps: number; response: Latency; service: Latency; lag: Latency; ret_codes: Record<string, number>; generator_limited: boolean };

async function startRun(req: APIRequestContext, name: string, query: string, duration: string): Promise<string> {
  const res = await req.post('/api/v1/runs', { data: { project: 'default', name, spec: { url: `${echo}?${query}`, qps: 50, connections: 2, duration } } });
  expect(res.status(), await res.text()).toBe(201);
  const id = ((await res.json()) as { id: string }).id;
  return id;
}

async function waitCompleted(req: APIRequestContext, id: string) {
  await expect
    .poll(async () => ((await (await req.get(`/api/v1/runs/${id}`)).json()) as { status: string }).status, { timeout: 60_000 })
    .toBe('completed');
}

async function downloaded(page: Page, click: () => Promise<void>): Promise<{ download: Download; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = await download.path();
  return { download, text: readFileSync(path, 'utf8') };
}

test('per-second CSV, result JSON and permalinks of the run and compare views @own-stack', async ({ page, context }) => {
  test.setTimeout(120_000);
  expect((await page.request.post('/api/v1/auth/login', { data: { email, password } })).status()).toBe(200);
  const req = page.request;
  // 3 s with one request in ten a 503: codes 200 and 503 in the seconds.
  const id = await startRun(req, 'export me', 'status=503:10', '3s');
  const other = await startRun(req, 'export other', 'delay=1ms', '1s');
  for (const r of [id, other]) await waitCompleted(req, r);

  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId('run-status')).toHaveText('completed');
  const more = page.getByText('More formats');
  await more.click();
  expect((await new AxeBuilder({ page }).analyze()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);

  // The per-second CSV: a row per second the API holds, its figures as the API gives them.
  const api = (await (await req.get(`/api/v1/runs/${id}/intervals?limit=1000`)).json()) as { items: Interval[] };
  expect(api.items.length).toBeGreaterThanOrEqual(3);
  const csv = await downloaded(page, () => page.getByRole('button', { name: 'CSV (per second)' }).click());
  expect(csv.download.suggestedFilename()).toBe(`barrage-${id}-seconds.csv`);
  const [head, ...rows] = csv.text.trimEnd().split('\r\n').map((l) => l.split(','));
  expect(head!.slice(0, 4)).toEqual(['second', 'count', 'errors', 'qps']);
  expect(head).toEqual(expect.arrayContaining(['response_p99_us', 'service_p99_us', 'lag_max_us', 'code_200', 'code_503']));
  expect(rows).toHaveLength(api.items.length);
  const col = (name: string) => head!.indexOf(name);
  for (const [i, iv] of api.items.entries()) {
    const r = rows[i]!;
    expect([r[col('second')], r[col('count')], r[col('errors')], r[col('qps')]]).toEqual([iv.second, iv.count, iv.errors, iv.qps].map(String));
    expect([r[col('response_p99_us')], r[col('service_p50_us')], r[col('lag_max_us')]]).toEqual(
      [iv.response.p99_us, iv.service.p50_us, iv.lag.max_us].map(String),
    );
    expect([r[col('code_200')], r[col('code_503')]]).toEqual([String(iv.ret_codes['200'] ?? 0), String(iv.ret_codes['503'] ?? 0)]);
    expect(r[col('generator_limited')]).toBe(iv.generator_limited ? '1' : '0');
  }
  const errors = rows.reduce((s, r) => s + Number(r[col('code_503')]), 0);
  expect(errors).toBeGreaterThan(0);

  // The result JSON is the API's.
  const json = await downloaded(page, () => page.getByRole('link', { name: 'Download Barrage JSON' }).click());
  expect(json.download.suggestedFilename()).toBe(`barrage-${id}.json`);
  const want = await (await req.get(`/api/v1/runs/${id}/result?format=barrage`)).json();
  expect(JSON.parse(json.text)).toEqual(want);

  // Permalinks: each toggle writes the URL; the link opens the same view elsewhere.
  await more.click();
  const latency = page.getByRole('region', { name: 'Latency per second' });
  await latency.getByRole('button', { name: 'service', exact: true }).click();
  const spectrum = page.getByRole('region', { name: 'Percentile spectrum', exact: true });
  await spectrum.getByRole('radio', { name: 'Lag' }).check();
  const histogram = page.getByRole('region', { name: 'Latency histogram' });
  const logX = histogram.getByRole('checkbox', { name: 'log x' });
  const wasLog = await logX.isChecked();
  await logX.setChecked(!wasLog);
  const codes = page.getByRole('checkbox', { name: 'include successes' });
  await codes.check();
  await expect(page).toHaveURL(new RegExp(`/runs/${id}\\?latency=service&spectrum=lag&hist=${wasLog ? 'linear' : 'log'}&codes=all$`));

  const copy = await context.newPage();
  await copy.goto(page.url());
  await expect(copy.getByRole('region', { name: 'Latency per second' }).getByRole('button', { name: 'service', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(copy.getByRole('region', { name: 'Latency per second' }).getByRole('button', { name: /^response/ })).toHaveAttribute('aria-pressed', 'false');
  await expect(copy.getByRole('region', { name: 'Percentile spectrum', exact: true }).getByRole('radio', { name: 'Lag' })).toBeChecked();
  await expect(copy.getByRole('region', { name: 'Latency histogram' }).getByRole('checkbox', { name: 'log x' })).toBeChecked({ checked: !wasLog });
  await expect(copy.getByRole('checkbox', { name: 'include successes' })).toBeChecked();
  await expect(copy.getByRole('heading', { name: 'Results by code' })).toBeVisible();
  await copy.close();

  // Back to the run's default latency: its parameter leaves the URL.
  await latency.getByRole('button', { name: /response/ }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${id}\\?spectrum=lag&hist=${wasLog ? 'linear' : 'log'}&codes=all$`));

  // The compare page's spectrum toggle is kept beside the runs compared.
  await page.goto(`/compare?ids=${id},${other}&spectrum=service`);
  const overlay = page.getByRole('region', { name: 'Percentile spectrum', exact: true });
  await expect(overlay.getByRole('radio', { name: 'Service' })).toBeChecked();
  await overlay.scrollIntoViewIfNeeded();
  await expect(overlay.locator('svg .recharts-line-curve')).toHaveCount(2);
  await overlay.getByRole('radio', { name: 'Lag' }).check();
  await expect(page).toHaveURL(new RegExp(`/compare\\?ids=${id}(%2C|,)${other}&spectrum=lag$`));
});

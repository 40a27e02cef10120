import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';

// A long run's page reads its seconds in windows. ingestbench's big-run
// scenario (services/api/cmd/ingestbench/bigrun.go) seeds one ended run of 2
// shards and 1,300 seconds through the real dispatcher and ingest, on an API,
// embedded NATS and database of its own, and holds that API up. Its page then
// asks for the merged and the per-agent seconds in windows of 5 s (seriesStep,
// ceil(1,300 / 300)), says so, and draws a row a window: 260 of them. Too
// long a run for a real one in make test, which is why it is seeded.

const seconds = 1300;
const step = Math.ceil(seconds / 300);
const windows = Math.ceil(seconds / step);
const root = resolve('..');
const pg = process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432';

type Hold = { base: string; run: string; email: string; password: string };
type Window = { second: number; seconds?: number; count: number };

let data = '';
let seeder: ChildProcess | undefined;

test.afterAll(() => {
  if (seeder?.pid && seeder.exitCode === null) process.kill(seeder.pid, 'SIGINT');
  if (data) rmSync(data, { recursive: true, force: true });
});

async function until<T>(what: string, get: () => T | undefined, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (seeder?.exitCode !== null) throw new Error(`ingestbench exited (${seeder?.exitCode}) before ${what}: ${readFileSync(join(data, 'seed.log'), 'utf8')}`);
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('a 1,300-second run: the page reads and draws its seconds in windows of 5 s', async ({ browser }) => {
  test.setTimeout(240_000);
  data = mkdtempSync(join(tmpdir(), 'barrage-e2e-long-'));
  // The flags of make build (pkg/gobuild), so that the packages it shares with barrage-api come from the build cache.
  execFileSync('go', ['build', '-trimpath', '-o', join(data, 'ingestbench'), './services/api/cmd/ingestbench'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, CGO_ENABLED: '0' },
  });
  const hold = join(data, 'hold.json');
  const log = openSync(join(data, 'seed.log'), 'a');
  seeder = spawn(
    join(data, 'ingestbench'),
    ['-scenario', 'big-run', '-agents', '2', '-seconds', String(seconds), '-database-url', `${pg}/barrage_e2e_long_bench?sslmode=disable`,
      '-api-bin', join(root, 'bin', 'barrage-api'), '-hold', hold, '-out', join(data, 'seed.md')],
    { stdio: ['ignore', log, log] },
  );
  const h = await until('the seeded run', () => (existsSync(hold) && readFileSync(hold, 'utf8').trim() ? (JSON.parse(readFileSync(hold, 'utf8')) as Hold) : undefined), 180_000);

  const context = await browser.newContext({ baseURL: h.base });
  const request = context.request;
  expect((await request.post('/api/v1/auth/login', { data: { email: h.email, password: h.password } })).status()).toBe(200);
  // The API's windows: every stored second in one, their counts the run's.
  const api = (await (await request.get(`/api/v1/runs/${h.run}/intervals?step=${step}&limit=1000`)).json()) as { items: Window[] };
  const run = (await (await request.get(`/api/v1/runs/${h.run}`)).json()) as { summary: { count: number } };
  expect(api.items).toHaveLength(windows);
  expect(api.items.reduce((n, w) => n + (w.seconds ?? 0), 0)).toBe(seconds);
  expect(api.items.reduce((n, w) => n + w.count, 0)).toBe(run.summary.count);

  const page = await context.newPage();
  const asked: string[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith('/intervals')) asked.push(`${u.pathname.replace(/^.*\/runs\/[^/]+/, '')}?step=${u.searchParams.get('step') ?? '1'}`);
  });
  await page.goto(`/runs/${h.run}`);
  await expect(page.getByTestId('live-points')).toHaveText(`${seconds} seconds received, drawn in windows of ${step} s`);
  const qps = page.getByRole('region', { name: 'Requests per second' });
  // The page opens at the cost of its first screen (web/src/components/ui/chart-area.tsx): the
  // histogram there is drawn; the per-second charts further down wait until a scroll brings them near.
  const histogram = page.getByRole('region', { name: 'Latency histogram' });
  await expect(histogram.locator('.chart')).toHaveAttribute('data-drawn', 'yes');
  await expect(histogram.locator('svg.chart-svg')).toHaveCount(1);
  await expect(qps.locator('.chart')).toHaveAttribute('data-drawn', 'later');
  await expect(qps.locator('.recharts-wrapper')).toHaveCount(0);
  await qps.scrollIntoViewIfNeeded();
  await expect(qps.locator('.chart')).toHaveAttribute('data-drawn', 'yes');
  await expect(qps.locator('path.recharts-line-curve').first()).toHaveAttribute('d', /^M.+L/);
  await qps.getByText('Table view').click();
  await expect(qps.getByRole('region', { name: 'Requests per second, table view' }).locator('caption')).toHaveText(`Requests per second: ${windows} rows`);
  expect(asked).toEqual([`/intervals?step=${step}`]);

  // The per-agent lines read their windows too.
  await page.getByRole('button', { name: 'Per agent' }).click();
  await expect(page.getByTestId('agent-latency-chart').locator('path.recharts-line-curve')).toHaveCount(2);
  expect(asked).toContain(`/shards/intervals?step=${step}`);
  expect(asked.filter((a) => a.endsWith('?step=1'))).toEqual([]);

  // Opened again, the charts below the first screen wait; printing the page draws them all first.
  await page.goto(`/runs/${h.run}`);
  await expect(histogram.locator('.chart')).toHaveAttribute('data-drawn', 'yes');
  expect(await page.locator('[data-drawn="later"]').count()).toBeGreaterThan(2);
  await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
  await expect(page.locator('[data-drawn="later"]')).toHaveCount(0);

  const res = await new AxeBuilder({ page }).analyze();
  expect(res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await context.close();
});

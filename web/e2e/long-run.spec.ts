import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';

// Long runs, seeded by ingestbench's big-run scenario
// (services/api/cmd/ingestbench/bigrun.go) through the real dispatcher and
// ingest, on an API, embedded NATS and database of its own, which it holds
// up. Too long for real runs in make test, which is why they are seeded.
//   - An ended run of 2 shards and 1,300 seconds: its page asks for the
//     merged and the per-agent seconds in windows of 5 s (seriesStep,
//     ceil(1,300 / 300)), says so, and draws a row a window: 260 of them.
//   - A live one (-live): its page reads the seconds so far, then follows the
//     run's stream from after the last of them, not from its start.

const seconds = 1300;
const step = Math.ceil(seconds / 300);
const windows = Math.ceil(seconds / step);
const root = resolve('..');
const pg = process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432';

type Hold = { base: string; run: string; email: string; password: string };
type Window = { second: number; seconds?: number; count: number };

const seeders: { dir: string; proc: ChildProcess }[] = [];

test.afterAll(() => {
  for (const { dir, proc } of seeders) {
    if (proc.pid && proc.exitCode === null) process.kill(proc.pid, 'SIGINT');
    rmSync(dir, { recursive: true, force: true });
  }
});

/** seed runs ingestbench's big-run scenario of 2 shards on a database of its own, with args added, and returns its -hold file once written. */
async function seed(db: string, secs: number, args: string[] = []): Promise<Hold> {
  const dir = mkdtempSync(join(tmpdir(), 'barrage-e2e-long-'));
  // The flags of make build (pkg/gobuild), so that the packages it shares with barrage-api come from the build cache.
  execFileSync('go', ['build', '-trimpath', '-o', join(dir, 'ingestbench'), './services/api/cmd/ingestbench'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, CGO_ENABLED: '0' },
  });
  const hold = join(dir, 'hold.json');
  const log = openSync(join(dir, 'seed.log'), 'a');
  const proc = spawn(
    join(dir, 'ingestbench'),
    ['-scenario', 'big-run', '-agents', '2', '-seconds', String(secs), '-database-url', `${pg}/${db}?sslmode=disable`,
      '-api-bin', join(root, 'bin', 'barrage-api'), '-hold', hold, '-out', join(dir, 'seed.md'), ...args],
    { stdio: ['ignore', log, log] },
  );
  seeders.push({ dir, proc });
  const end = Date.now() + 180_000;
  for (;;) {
    if (existsSync(hold) && readFileSync(hold, 'utf8').trim()) return JSON.parse(readFileSync(hold, 'utf8')) as Hold;
    if (proc.exitCode !== null) throw new Error(`ingestbench exited (${proc.exitCode}) before it seeded the run: ${readFileSync(join(dir, 'seed.log'), 'utf8')}`);
    if (Date.now() > end) throw new Error('timed out waiting for the seeded run');
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('a 1,300-second run: the page reads and draws its seconds in windows of 5 s', async ({ browser }) => {
  test.setTimeout(240_000);
  const h = await seed('barrage_e2e_long_bench', seconds);

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
  // The first screen draws before the per-second cards have their windows: count once they are there.
  await expect(qps.locator('.chart')).toHaveAttribute('data-drawn', 'later');
  expect(await page.locator('[data-drawn="later"]').count()).toBeGreaterThan(2);
  await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
  await expect(page.locator('[data-drawn="later"]')).toHaveCount(0);

  const res = await new AxeBuilder({ page }).analyze();
  expect(res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await context.close();
});

test('a live 400-second run: the page follows its stream from after the seconds it read', async ({ browser }) => {
  test.setTimeout(240_000);
  // All but the last 60 seconds at once, then one a second while the page watches.
  const h = await seed('barrage_e2e_live_bench', 400, ['-live', '60']);
  const context = await browser.newContext({ baseURL: h.base });
  expect((await context.request.post('/api/v1/auth/login', { data: { email: h.email, password: h.password } })).status()).toBe(200);
  const page = await context.newPage();
  const streams: URL[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith('/events')) streams.push(u);
  });
  await page.goto(`/runs/${h.run}`);
  await expect(page.getByRole('region', { name: 'Live figures' })).toBeVisible();
  const received = page.getByTestId('live-points');
  await expect(received).toHaveText(/^\d+ seconds received$/);
  const first = Number((await received.textContent())!.split(' ')[0]);
  expect(first).toBeGreaterThanOrEqual(340);
  // One stream, opened after the seconds read: from the last of them, with both shards' snapshots.
  expect(streams).toHaveLength(1);
  const after = streams[0]!.searchParams.get('after') ?? '';
  expect(after).toMatch(/^\d+\.2$/);
  expect(Number(after.split('.')[0])).toBeGreaterThanOrEqual(339);
  // Live seconds keep coming through it, and the charts draw them.
  await expect.poll(async () => Number((await received.textContent())!.split(' ')[0]), { timeout: 15_000 }).toBeGreaterThan(first + 2);
  const qps = page.getByRole('region', { name: 'Requests per second' });
  await qps.scrollIntoViewIfNeeded();
  await expect(qps.locator('path.recharts-line-curve').first()).toHaveAttribute('d', /^M.+L/);
  await context.close();
});

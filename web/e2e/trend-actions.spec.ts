import { mkdirSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { port } from '../playwright.config';

// The trend's points against the real stack: a stored test with the
// threshold `p(99) < 50ms`, run twice against the echo at 5 ms and once at
// 150 ms (which fails it). Each point's marker is its run's verdict as the
// API has it; a point opens a menu whose "Compare with previous run" opens
// the compare page of that run and the one before, and whose "Open run"
// opens the run; the threshold is a labelled line. Tagged @own-stack: it
// adds runs to the default project, which other specs count.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/`;
const shots = 'e2e/screenshots';
mkdirSync(shots, { recursive: true });
const thresholds = ['p(99) < 50ms'];

type Point = { run_id: string; verdict?: string; degraded: boolean; count?: number };
type Trend = { items: Point[]; limits: { threshold: string; metric: string; value: number }[] };

// Closed-loop 1-second runs, as e2e/trend.spec.ts: p99 is service time over
// hundreds of requests, far under 50 ms at 5 ms and far over it at 150 ms.
const spec = (delay: string) => ({ url: `${echo}?delay=${delay}`, qps: 0, connections: 4, duration: '1s' });

async function runOnce(request: APIRequestContext, testId: string): Promise<string> {
  const created = await request.post('/api/v1/runs', { data: { test: testId } });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await expect
    .poll(async () => ((await (await request.get(`/api/v1/runs/${id}`)).json()) as { status: string }).status, { timeout: 60_000 })
    .toBe('completed');
  return id;
}

/** mark is the marker the page shows for a point, as src/features/tests/utils/trend.ts words it. */
function mark(p: Point): string {
  if (p.verdict === 'fail') return 'failed';
  if (p.degraded) return 'degraded';
  return ({ pass: 'passed', inconclusive: 'inconclusive', error: 'error' } as Record<string, string>)[p.verdict ?? ''] ?? 'none';
}

test('trend: verdict markers, a point\'s menu opens the run and its compare, the threshold line @own-stack', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  const name = `e2e trend actions ${Date.now()}`;
  const made = await page.request.post('/api/v1/tests', { data: { project: 'default', name, spec: spec('5ms'), thresholds } });
  expect(made.status(), await made.text()).toBe(201);
  const { id: testId } = (await made.json()) as { id: string };
  const runs = [await runOnce(page.request, testId), await runOnce(page.request, testId)];
  const put = await page.request.put(`/api/v1/tests/${testId}`, { data: { name, spec: spec('150ms'), thresholds } });
  expect(put.status(), await put.text()).toBe(200);
  runs.push(await runOnce(page.request, testId));

  const trend = (await (await page.request.get(`/api/v1/tests/${testId}/trend`)).json()) as Trend;
  expect(trend.items.map((p) => p.run_id)).toEqual(runs);
  expect(trend.items[2]!.verdict).toBe('fail');
  expect(trend.limits).toEqual([{ threshold: 'p(99) < 50ms', metric: 'p99', op: '<', value: 50_000 }]);

  await page.goto(`/tests/${testId}`);
  const points = page.getByTestId('trend-point').and(page.locator('[data-chart="latency"]'));
  await expect(points).toHaveCount(3);
  for (const p of trend.items) {
    await expect(points.and(page.locator(`[data-run="${p.run_id}"]`))).toHaveAttribute('data-verdict', mark(p));
  }
  await expect(points.and(page.locator(`[data-run="${runs[2]}"]`))).toHaveAttribute('data-verdict', 'failed');
  const legend = page.getByRole('list', { name: 'Verdict markers' });
  await expect(legend.getByRole('listitem')).toHaveText(['passed', 'failed', 'inconclusive', 'degraded (lost a shard)']);
  await expect(page.getByTestId('trend-threshold')).toHaveText('threshold p(99) < 50ms');

  // The failing run's point, clicked: its menu, with its figures and verdict.
  await points.and(page.locator(`[data-run="${runs[2]}"]`)).click();
  const menu = page.getByRole('dialog', { name: /^Run / });
  await expect(menu).toHaveAttribute('data-run', runs[2]!);
  await expect(menu.getByTestId('trend-menu-verdict')).toHaveText(/failed/);
  await expect(menu.getByRole('link', { name: 'Open run' })).toBeFocused();
  await page.screenshot({ path: `${shots}/test-trend.png`, fullPage: true }); // the menu open on its point: the charts are on the first screen
  const scan = await new AxeBuilder({ page }).analyze();
  const bad = scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
  expect(bad).toEqual([]);

  await menu.getByRole('link', { name: 'Compare with previous run' }).click();
  await expect(page).toHaveURL(new RegExp(`/compare\\?ids=${runs[1]},${runs[2]}$`));
  for (const id of [runs[1]!, runs[2]!]) await expect(page.getByTestId(`compare-count-${id}`)).toBeVisible();
  await expect(page.locator('[data-testid^="compare-count-"]')).toHaveCount(2);

  // The first run's point, from the keyboard: Enter opens its menu, Escape
  // gives the focus back, Space opens it again; it has no run before it.
  await page.goBack();
  const first = points.and(page.locator(`[data-run="${runs[0]}"]`));
  await first.focus();
  await page.keyboard.press('Enter');
  await expect(menu).toHaveAttribute('data-run', runs[0]!);
  await expect(menu.getByRole('link', { name: 'Compare with previous run' })).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(first).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(points.and(page.locator(`[data-run="${runs[1]}"]`))).toBeFocused();
  await page.keyboard.press(' ');
  await expect(menu).toHaveAttribute('data-run', runs[1]!);
  await menu.getByRole('link', { name: 'Open run' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runs[1]}$`));

  // The table view's rows open the same menu.
  await page.goto(`/tests/${testId}`);
  await page.getByText('Table view').click();
  await page.getByTestId('trend-row').and(page.locator(`[data-run="${runs[2]}"]`)).click();
  await expect(menu).toHaveAttribute('data-run', runs[2]!);
  await expect(menu.getByRole('link', { name: 'Compare with previous run' })).toHaveAttribute('href', `/compare?ids=${runs[1]},${runs[2]}`);
});

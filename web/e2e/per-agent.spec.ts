import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { port } from '../playwright.config';

// Per-agent lines against the real stack and its two agents: a 12-second run
// at 60 qps split over both lists, while it runs, each agent's current rate,
// CPU and lag p99 (the agents and seconds GET /runs/{id}/shards/intervals
// gives); the "Per agent" toggle, kept in the URL, draws one line per agent in
// the rate and latency charts, live and after the end, and the rate chart's
// table view shows each agent's qps per second as the API gives it.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/?delay=2ms`;

type ShardInterval = { second: number; shard: number; agent_name: string; count: number; qps: number; lag_p99_us: number; cpu_cores: number };

async function shardRows(page: Page, id: string): Promise<ShardInterval[]> {
  const res = await page.request.get(`/api/v1/runs/${id}/shards/intervals?limit=1000`);
  expect(res.status()).toBe(200);
  return ((await res.json()) as { items: ShardInterval[] }).items;
}

test('per-agent lines: live agents, one line per agent, table rows match the API @own-stack', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  const created = await page.request.post('/api/v1/runs', {
    data: { project: 'default', name: 'e2e per agent', spec: { url: echo, qps: 60, connections: 4, duration: '12s', agents: { count: 2 } } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await page.goto(`/runs/${id}`);

  // Live: each agent's latest second.
  const now = page.getByTestId('agents-live');
  await expect(now.locator('tbody tr')).toHaveCount(2, { timeout: 40_000 });
  const rows = await shardRows(page, id);
  const labels = [...new Map(rows.map((r) => [r.shard, `${r.agent_name}/${r.shard}`])).entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
  expect(labels).toHaveLength(2);
  await expect(now.locator('tbody tr td:first-child')).toHaveText(labels);
  await expect(now.locator('tbody tr').first()).toContainText(/of \d+(\.\d)? cores/);

  // The toggle, live: two lines in each chart, and the URL keeps it.
  await page.getByRole('button', { name: 'Per agent' }).click();
  await expect(page).toHaveURL(/[?&]agents=on/);
  await expect(page.getByRole('button', { name: 'Per agent' })).toHaveAttribute('aria-pressed', 'true');
  const qpsChart = page.getByTestId('agent-qps-chart');
  await expect(qpsChart.locator('.recharts-line')).toHaveCount(2);
  await expect(page.getByTestId('agent-latency-chart').locator('.recharts-line')).toHaveCount(2);
  await expect(qpsChart.locator('.run-legend li')).toHaveText(labels);

  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  // After the end, from a fresh load of the same URL.
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${id}`)).json()) as { status: string }).status, { timeout: 40_000 })
    .toBe('completed');
  await page.reload();
  await expect(page.getByRole('region', { name: 'Result summary' })).toBeVisible();
  await qpsChart.scrollIntoViewIfNeeded(); // below the first screen: drawn once scrolled to (chart-area.tsx)
  await expect(qpsChart.locator('.recharts-line')).toHaveCount(2);
  await expect(page.getByTestId('agent-latency-chart').locator('.recharts-line')).toHaveCount(2);

  // The table view: one row per second, a column per agent, the API's qps.
  const final = await shardRows(page, id);
  const seconds = [...new Set(final.map((r) => r.second))].sort((a, b) => a - b);
  const merged = ((await (await page.request.get(`/api/v1/runs/${id}/intervals?limit=1000`)).json()) as { items: { second: number; count: number }[] }).items;
  for (const iv of merged) expect(final.filter((r) => r.second === iv.second).reduce((n, r) => n + r.count, 0)).toBe(iv.count);
  await qpsChart.locator('summary').click();
  const table = qpsChart.getByRole('region', { name: 'Requests per second, per agent, table view' });
  await expect(table.locator('thead th')).toHaveText(['Second', ...labels]);
  const body = table.locator('tbody tr');
  await expect(body).toHaveCount(seconds.length);
  for (const [i, second] of seconds.entries()) {
    const cells = await body.nth(i).locator('td').allTextContents();
    for (const [j, shard] of [0, 1].entries()) {
      const want = final.find((r) => r.second === second && r.shard === shard);
      if (!want) {
        expect(cells[j + 1]).toBe('–');
        continue;
      }
      expect(Math.abs(Number(cells[j + 1]!.replace(/,/g, '')) - want.qps)).toBeLessThanOrEqual(Math.max(0.5, 0.01 * want.qps));
    }
  }
  const after = await new AxeBuilder({ page }).analyze();
  expect(after.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
});

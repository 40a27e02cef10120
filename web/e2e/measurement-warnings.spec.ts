import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { port } from '../playwright.config';
import { signIn } from './sign-in';

// The run page's measurement warnings against the real stack
// (docs/dashboard.md, "Measurement warnings"):
// - one connection asked for 200 qps against an echo that answers in 20 ms
//   falls behind its schedule (as in generator-limited.spec.ts), so lag's p99
//   grows past half of service time's and the page says the generator fell
//   behind;
// - a stored test of ~500 requests (100 qps for 5 s against the echo at
//   20 ms, with connections to spare) has a p99.9 that is its maximum and a p99
//   with 5 requests beyond it: both are marked "few samples" in the headline
//   and the percentile table, with the explanation in text; the runs list,
//   the test's recent runs and its trend name the latency's kind.
// Each page with a warning passes axe (no serious or critical violation).

const echo = `http://127.0.0.1:${port + 1}/`;

type Lat = { count: number; p99_us: number; p999_us: number };
type Result = { primary: string; response: Lat; service: Lat; lag?: Lat };

async function finished(page: Page, id: string): Promise<Result> {
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${id}`)).json()) as { status: string }).status, { timeout: 60_000 })
    .toBe('completed');
  return (await (await page.request.get(`/api/v1/runs/${id}/result`)).json()) as Result;
}

async function axe(page: Page): Promise<string[]> {
  const res = await new AxeBuilder({ page }).analyze();
  return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}: ${v.help}`));
}

test('lag rivals service time: the run page says the generator fell behind', async ({ page }) => {
  await signIn(page);
  const created = await page.request.post('/api/v1/runs', {
    data: { project: 'default', name: 'e2e lag rivals service', spec: { url: `${echo}?delay=20ms`, qps: 200, connections: 1, duration: '2s' } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const result = await finished(page, id);
  // The rule, from the API's figures: lag p99 at least half of service p99, and at least 1 ms.
  expect(result.lag!.p99_us).toBeGreaterThanOrEqual(Math.max(1_000, result.service.p99_us / 2));

  await page.goto(`/runs/${id}`);
  const note = page.getByRole('note', { name: 'Lag rivals service time' });
  await expect(note).toContainText('The load generator fell behind: lag p99');
  await expect(note).toContainText('Add connections or agents, or lower the rate');
  expect(await axe(page)).toEqual([]);
});

test('few samples: p99.9 of ~500 requests is marked as the maximum, latencies name their kind', async ({ page }) => {
  await signIn(page);
  const name = `e2e few samples ${Date.now()}`;
  const made = await page.request.post('/api/v1/tests', {
    data: { project: 'default', name, spec: { url: `${echo}?delay=20ms`, qps: 100, connections: 8, duration: '5s' } },
  });
  expect(made.status(), await made.text()).toBe(201);
  const { id: testId } = (await made.json()) as { id: string };
  const created = await page.request.post('/api/v1/runs', { data: { test: testId } });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const result = await finished(page, id);
  expect(result.primary).toBe('response');
  const n = result.response.count;
  expect(n).toBeGreaterThan(100);
  expect(n).toBeLessThan(1_000);
  const count = n.toLocaleString('en-US');

  await page.goto(`/runs/${id}`);
  // Whether lag rivals service time here depends on the host's load, so the lag note is not asserted either way.
  await expect(page.getByRole('region', { name: 'Result summary' })).toBeVisible();
  const p999 = page.getByTestId('result-p999');
  await expect(p999.locator('[data-thin="p99.9"]')).toContainText('few samples');
  await expect(p999).toContainText(`p99.9 of ${count} requests is the maximum`);
  await expect(page.getByTestId('result-p99')).toContainText(`p99 of ${count} requests rests on`);
  const table = page.getByRole('region', { name: 'Percentiles' });
  await expect(table.getByRole('row', { name: /^p99\.9/ }).locator('[data-thin]')).toHaveCount(3);
  await expect(table.getByRole('row', { name: /^p90/ }).locator('[data-thin]')).toHaveCount(0);
  await expect(table.getByRole('list', { name: 'Percentiles with few samples' })).toContainText(
    `† few samples: p99.9 of ${count} requests is the maximum: fewer than one request lies beyond it; it needs 10,000.`,
  );
  expect(await axe(page)).toEqual([]);

  await page.goto('/runs');
  await expect(page.locator(`tr[data-run-id="${id}"] .runs-kind`)).toHaveText('response time');

  await page.goto(`/tests/${testId}`);
  await expect(page.getByRole('heading', { name: 'Latency (response time)' })).toBeVisible();
  await expect(page.getByTestId('test-runs').locator('tbody tr').first()).toContainText('response time');
  expect(await axe(page)).toEqual([]);
});

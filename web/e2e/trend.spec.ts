import { expect, test, type APIRequestContext } from '@playwright/test';
import { port } from '../playwright.config';

// The test page's trend against the real stack: a stored test run four
// times against the echo at 5 ms, then four times at 150 ms, has a p99 change
// point at the first slow run; the latency chart marks it with a triangle
// whose tooltip says the change, and the list under the chart names the run.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/`;

type ChangePoint = { run_id: string; metric: string; before_us: number; after_us: number; change: number };

// A loaded host (make e2e runs a second stack beside this one) moves a
// 1-second run's p99 by a few times: the runs are closed loop, so their p99 is
// service time over hundreds of requests at 5 ms rather than response time
// (which counts the generator's stalls) over 20, and the slow runs are 30
// times slower, so that the change stands far above that noise.
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

test('trend: a change of p99 is marked on the run that made it', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  const name = `e2e trend ${Date.now()}`;
  const made = await page.request.post('/api/v1/tests', { data: { project: 'default', name, spec: spec('5ms') } });
  expect(made.status(), await made.text()).toBe(201);
  const { id: testId } = (await made.json()) as { id: string };
  const runs: string[] = [];
  for (let i = 0; i < 4; i++) runs.push(await runOnce(page.request, testId));
  const put = await page.request.put(`/api/v1/tests/${testId}`, { data: { name, spec: spec('150ms') } });
  expect(put.status(), await put.text()).toBe(200);
  for (let i = 0; i < 4; i++) runs.push(await runOnce(page.request, testId));

  const trend = (await (await page.request.get(`/api/v1/tests/${testId}/trend`)).json()) as { change_points: ChangePoint[] };
  const p99 = trend.change_points.filter((c) => c.metric === 'p99');
  expect(p99).toHaveLength(1);
  expect(p99[0]!.run_id).toBe(runs[4]);
  expect(p99[0]!.after_us).toBeGreaterThan(150_000);
  expect(p99[0]!.before_us).toBeLessThan(150_000);
  const pct = Math.round(p99[0]!.change * 100);

  await page.goto(`/tests/${testId}`);
  const mark = page.getByTestId('trend-change').and(page.locator('[data-metric="p99"]'));
  await expect(mark).toHaveCount(1);
  await expect(mark.locator('title')).toHaveText(`p99 +${pct} % from this run`);
  const list = page.getByRole('list', { name: 'Latency changes' });
  const item = list.getByRole('listitem').filter({ hasText: `p99 +${pct} %` });
  await expect(item).toContainText(`from run ${name}`);
  await expect(item.getByRole('link')).toHaveAttribute('href', `/runs/${runs[4]}`);
});

import { expect, test, type Page } from '@playwright/test';
import { port } from '../playwright.config';
import { signIn } from './sign-in';

// A confidence form against a pooled baseline, on the real stack: three
// 11 s runs of a stored test (40 qps against the echo at 2 ms) pass and are
// pooled by a fourth that asks for the last 3 (baseline_last). The API's
// estimate carries the run-to-run spread of the 3 runs (docs/verdicts.md,
// "The run's own level"), and the run page's thresholds card states it
// under the interval with the API's figure.

const echo = `http://127.0.0.1:${port + 1}/`;

type Estimate = { ratio: number; spread?: number; spread_runs?: number };
type Run = { status: string; baseline_pool?: { runs: string[] }; threshold_results?: { pass: boolean; estimate?: Estimate }[] };

async function start(page: Page, body: object): Promise<string> {
  const res = await page.request.post('/api/v1/runs', { data: body });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function completed(page: Page, id: string): Promise<Run> {
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${id}`)).json()) as Run).status, { timeout: 60_000 })
    .toBe('completed');
  return (await (await page.request.get(`/api/v1/runs/${id}`)).json()) as Run;
}

test('a pooled baseline measures the spread from run to run and the thresholds card states it @own-stack', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  const created = await page.request.post('/api/v1/tests', {
    data: { project: 'default', name: `pooled spread ${Date.now()}`, spec: { url: `${echo}?delay=2ms`, qps: 40, connections: 2, duration: '11s' } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const testId = ((await created.json()) as { id: string }).id;

  const bases = await Promise.all([0, 1, 2].map(() => start(page, { test: testId })));
  for (const id of bases) await completed(page, id);
  const judged = await start(page, { test: testId, baseline_last: 3, thresholds: ['p(50) < baseline * 3 @ 95%'] });
  const run = await completed(page, judged);

  expect([...(run.baseline_pool?.runs ?? [])].sort()).toEqual([...bases].sort());
  const x = run.threshold_results?.[0]?.estimate;
  expect(x?.spread_runs).toBe(3);
  expect(x?.spread).toBeGreaterThanOrEqual(0);
  expect(x?.spread).toBeLessThan(0.5);

  await page.goto(`/runs/${judged}`);
  await expect(page.getByTestId('run-thresholds').getByTestId('threshold-outcome')).toHaveText(['pass']);
  await expect(page.getByTestId('run-thresholds').getByTestId('threshold-interval')).toContainText(
    `runs differ by ${(x!.spread! * 100).toFixed(1)} % from run to run (3 pooled runs)`,
  );
});

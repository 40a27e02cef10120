import { expect, test } from '@playwright/test';
import { port } from '../playwright.config';

// The run page's generator-limited warning against the real stack: one
// connection asked for 200 qps (a send every 5 ms) against an echo that
// answers in 20 ms falls behind its schedule every second, so the agent,
// not the target, is the bottleneck; the page says for how many seconds,
// as the API's result and the run's verdict note do, and the per-second
// chart names the flagged seconds the intervals endpoint returns, in its
// text and its table view.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/?delay=20ms`;

type Result = { duration_seconds: number; generator_limited_seconds?: number };
type Run = { status: string; verdict_note?: string };
type Interval = { second: number; generator_limited: boolean };

/** clock is the chart's time label of a second: m:ss. */
function clock(s: number): string {
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** spans names consecutive seconds as the chart does: "0:00–0:02, 0:04". */
function spans(seconds: number[]): string {
  const out: [number, number][] = [];
  for (const s of seconds) {
    const last = out[out.length - 1];
    if (last && s === last[1] + 1) last[1] = s;
    else out.push([s, s]);
  }
  return out.map(([a, b]) => (a === b ? clock(a) : `${clock(a)}–${clock(b)}`)).join(', ');
}

test('generator limited: the run page warns that the figures measure the agent', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  const created = await page.request.post('/api/v1/runs', {
    data: { project: 'default', name: 'e2e generator limited', spec: { url: echo, qps: 200, connections: 1, duration: '2s' } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${id}`)).json()) as Run).status, { timeout: 60_000 })
    .toBe('completed');
  const run = (await (await page.request.get(`/api/v1/runs/${id}`)).json()) as Run;
  const result = (await (await page.request.get(`/api/v1/runs/${id}/result`)).json()) as Result;
  const limited = result.generator_limited_seconds ?? 0;
  expect(limited).toBeGreaterThanOrEqual(2);
  const span = `${limited} of ${Math.max(limited, Math.round(result.duration_seconds))} s`;
  expect(run.verdict_note).toContain(`the load generator was the bottleneck for ${span}`);

  const page0 = (await (await page.request.get(`/api/v1/runs/${id}/intervals?limit=1000`)).json()) as { items: Interval[] };
  const flagged = page0.items.filter((iv) => iv.generator_limited).map((iv) => iv.second);
  expect(flagged).toHaveLength(limited);

  await page.goto(`/runs/${id}`);
  await expect(page.getByRole('note', { name: 'Generator limited' })).toContainText(
    `The load generator was the bottleneck for ${span}: figures measure the agent, not the target.`,
  );
  const chart = page.getByRole('region', { name: 'Requests per second', exact: true });
  await expect(chart.getByTestId('generator-limited-seconds')).toHaveText(
    `Generator limited (shaded) at ${spans(flagged)}: the load generator, not the target, was the bottleneck.`,
  );
  await chart.scrollIntoViewIfNeeded(); // drawn once on screen (chart-area.tsx)
  await expect(chart.locator('.recharts-reference-area')).toHaveCount(spans(flagged).split(', ').length);
  await chart.getByText('Table view').click();
  const table = chart.getByRole('region', { name: 'Requests per second, table view' });
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(page0.items.length);
  for (const [i, iv] of page0.items.entries()) {
    await expect(rows.nth(i).locator('td').first()).toHaveText(clock(iv.second));
    await expect(rows.nth(i).locator('td').last()).toHaveText(iv.generator_limited ? 'yes' : 'no');
  }
});

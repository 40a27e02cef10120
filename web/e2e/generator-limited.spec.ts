import { expect, test } from '@playwright/test';
import { port } from '../playwright.config';

// The run page's generator-limited warning against the real stack: one
// connection asked for 200 qps (a send every 5 ms) against an echo that
// answers in 20 ms falls behind its schedule every second, so the agent,
// not the target, is the bottleneck; the page says for how many seconds,
// as the API's result and the run's verdict note do.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/?delay=20ms`;

type Result = { duration_seconds: number; generator_limited_seconds?: number };
type Run = { status: string; verdict_note?: string };

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

  await page.goto(`/runs/${id}`);
  await expect(page.getByRole('note', { name: 'Generator limited' })).toContainText(
    `The load generator was the bottleneck for ${span}: figures measure the agent, not the target.`,
  );
});

import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { formatRate } from '../src/lib/format';
import { port } from '../playwright.config';

// A capacity search that did not meet its objective, against the real
// stack: an echo that answers in 20 ms can never hold p(99) under 1 ms, so
// the first step, at the bottom of the range, fails and the search ends
// not_met. Its page says so and what to do next (widen the range down, or
// see the failed step's run), with links that work by keyboard.
//
// Tagged @own-stack: it adds a search and its runs to the default project,
// which other specs count from empty.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/?delay=20ms`;

type Search = { id: string; status: string; outcome?: string; min_qps: number; message: string; steps: { qps: number; status: string; run_id?: string }[] };

test('a search that did not meet its objective says so and suggests widening the range @own-stack', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  const created = await page.request.post('/api/v1/searches', {
    data: {
      project: 'default', name: 'e2e not met', objective: 'p(99) < 1ms', min_qps: 10, max_qps: 100,
      step_duration: '2s', warmup: '0s', spec: { url: echo, connections: 2 },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/searches/${id}`)).json()) as Search).status, { timeout: 60_000 })
    .toBe('completed');
  const s = (await (await page.request.get(`/api/v1/searches/${id}`)).json()) as Search;
  expect(s.outcome).toBe('not_met');
  const lowest = s.steps.find((st) => st.qps === s.min_qps);
  expect(lowest?.status).toBe('failed');

  await page.goto(`/searches/${id}`);
  await expect(page.getByTestId('search-answer')).toHaveText(s.message);
  const next = page.getByTestId('search-next-step');
  await expect(next).toHaveText(
    `Next: The objective was not met even at ${formatRate(10)} qps, the bottom of the range. Widen the range down (a lower minimum rate), ` +
      `or see the failed step's run for why, then search again. The run at ${formatRate(10)} qps. Start a new search.`,
  );
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  const run = next.getByRole('link', { name: `The run at ${formatRate(10)} qps` });
  await run.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/runs/${lowest!.run_id}$`));
  await page.goBack();
  await next.getByRole('link', { name: 'Start a new search' }).click();
  await expect(page).toHaveURL(/\/searches$/);
});

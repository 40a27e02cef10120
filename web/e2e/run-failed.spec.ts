import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { port } from '../playwright.config';

// A state that is easy to forget, against the real stack: a run that failed.
// One connection asked for 200 qps against an echo that answers in 20 ms can
// send about 50 a second; with abort_if_rate_not_held the API stops it after
// 5 seconds under its rate and it ends failed (docs/api.md, "Holding the
// rate"). Its page says it failed, why (the run's error, as the API gives
// it), and the next step, with a link to the agents; axe finds nothing
// serious, and the link works by keyboard.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/?delay=20ms`;

type Run = { status: string; error?: string; aborted_by?: string };

test('a failed run says why and what to do next', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  const created = await page.request.post('/api/v1/runs', {
    data: {
      project: 'default',
      name: 'e2e run failed',
      spec: { url: echo, qps: 200, connections: 1, duration: '30s', abort_if_rate_not_held: true },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${id}`)).json()) as Run).status, { timeout: 60_000 })
    .toBe('failed');
  const run = (await (await page.request.get(`/api/v1/runs/${id}`)).json()) as Run;
  expect(run.aborted_by).toBe('abort_if_rate_not_held');
  expect(run.error).toMatch(/^rate not held: /);

  await page.goto(`/runs/${id}`);
  const alert = page.getByRole('alert').filter({ hasText: 'The run failed.' });
  await expect(alert).toContainText(run.error!);
  await expect(alert.getByTestId('run-next-step')).toHaveText(
    'Next: The agents could not hold the rate: add connections or agents, or lower the rate, and run again. See the agents.',
  );
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  const link = alert.getByRole('link', { name: 'See the agents' });
  await link.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/agents$/);
});

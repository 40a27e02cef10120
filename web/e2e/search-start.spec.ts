import { expect, test } from '@playwright/test';
import { port } from '../playwright.config';

// Capacity searches from the dashboard against the real stack: a runner builds
// an objective clause by clause, sets the rate range, step, warm-up,
// resolution and agents, starts the search, watches its first step run and
// cancels it; the API then holds exactly what the form said, and the search
// and its step's run have stopped.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/`;

type Search = {
  id: string; name: string; objective: string; status: string; min_qps: number; max_qps: number; step_duration: string;
  warmup: string; resolution: number; spec: { url: string; connections?: number; agents?: { count?: number } };
  steps: { step: number; status: string; run_id?: string }[];
};

test('start a capacity search from the form and cancel it', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Searches' }).click();
  await expect(page.getByText('No capacity search in this project yet.')).toBeVisible();
  await page.getByRole('button', { name: 'New search' }).click();
  const form = page.getByRole('form', { name: 'Start a capacity search' });

  await form.getByLabel('Name').fill('e2e search');
  await form.getByLabel('Target URL').fill(echo);
  await form.getByLabel('Connections').fill('4');
  await form.getByLabel('Agents').fill('1');
  await form.getByLabel('Limit of clause 1 (ms)').fill('200');
  await form.getByRole('button', { name: 'Add clause' }).click();
  await form.getByLabel('Metric of clause 3').selectOption({ label: 'p90 latency' });
  await form.getByLabel('Min qps').fill('20');
  await form.getByLabel('Max qps').fill('10');
  await form.getByLabel(/^Step\b/).fill('30s');
  await form.getByLabel('Warm-up').fill('1s');
  await form.getByLabel('Resolution (%)').fill('10');
  await form.getByRole('button', { name: 'Start search' }).click();

  // The page refuses an empty limit and a max below the min, and sends nothing.
  await expect(form.getByLabel('Limit of clause 3 (ms)')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByRole('group', { name: 'Clause 3' })).toContainText('A number of milliseconds above 0');
  await expect(form.getByLabel('Max qps')).toHaveAttribute('aria-invalid', 'true');
  await expect(form).toContainText('At least the min qps');
  expect(((await (await page.request.get('/api/v1/searches?project=default')).json()) as { items: Search[] }).items).toHaveLength(0);

  await form.getByRole('button', { name: 'Remove clause 3' }).click();
  await form.getByLabel('Comparison of clause 2').selectOption({ label: 'at most' });
  await form.getByLabel('Max qps').fill('2000');
  await expect(form.getByTestId('objective-preview')).toHaveText('p(99) < 200ms and error_rate <= 1%');
  await form.getByRole('button', { name: 'Start search' }).click();

  await expect(page).toHaveURL(/\/searches\/[0-9a-f-]{36}$/);
  const id = page.url().split('/').pop()!;
  await expect(page.getByRole('heading', { name: 'e2e search' })).toBeVisible();
  const s = (await (await page.request.get(`/api/v1/searches/${id}`)).json()) as Search;
  expect(s).toMatchObject({
    name: 'e2e search', objective: 'p(99) < 200ms and error_rate <= 1%', min_qps: 20, max_qps: 2000,
    step_duration: '30s', warmup: '1s', resolution: 0.1, status: 'running',
    spec: { url: echo, connections: 4, agents: { count: 1 } },
  });

  // The first step runs at the min rate; cancel stops the search and its run.
  const steps = page.getByTestId('search-steps').locator('tbody').getByRole('row');
  await expect(steps).toHaveCount(1, { timeout: 30_000 });
  await expect(steps.first()).toContainText('running');
  await page.getByRole('button', { name: 'Cancel search' }).click();
  await expect(page.getByRole('button', { name: 'Cancel search' })).toHaveCount(0);
  await expect(page.getByTestId('search-view')).toContainText('canceled');

  const after = (await (await page.request.get(`/api/v1/searches/${id}`)).json()) as Search;
  expect(after.status).toBe('canceled');
  const runId = after.steps[0]?.run_id;
  expect(runId).toBeTruthy();
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${runId}`)).json()) as { status: string }).status, { timeout: 30_000 })
    .toMatch(/^(canceled|completed)$/);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Searches' }).click();
  const row = page.getByTestId('searches').getByRole('row').filter({ hasText: 'e2e search' });
  await expect(row).toContainText('canceled');
  await expect(row).toContainText('p(99) < 200ms and error_rate <= 1%');
});

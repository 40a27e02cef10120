import { expect, test } from '@playwright/test';

// The test form against the real stack: a stored test's pooled baseline
// (baseline_last) is set, checked, shown and cleared through the form, and
// the API stores what the form sent (that the test's runs then pool that
// many is services/api/internal/app/test_baseline_last_test.go's).

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';

type Test = { id: string; name: string; baseline_last?: number };

test('a test pools its last passing runs as its baseline, set and cleared in the form', async ({ page }) => {
  const login = await page.request.post('/api/v1/auth/login', { data: { email, password } });
  expect(login.status()).toBe(200);
  const name = `pooled baseline ${Date.now()}`;

  await page.goto('/tests?new=1');
  await page.getByLabel('Name').fill(name);
  await page.getByLabel(/^Thresholds/).fill('p(99) < baseline * 1.10 @ 95%');
  const pool = page.getByLabel(/Baseline: pool the last N passing runs/);
  await pool.fill('25');
  await page.getByRole('button', { name: 'Create test' }).click();
  await expect(page.getByText('give a whole number of runs from 1 to 20')).toBeVisible();
  await expect(pool).toHaveAttribute('aria-invalid', 'true');

  await pool.fill('4');
  await page.getByRole('button', { name: 'Create test' }).click();
  await expect(page.getByRole('heading', { name })).toBeVisible();
  await expect(page.getByTestId('test-baseline')).toHaveText(
    'Baseline: the last 4 passing runs of this test, pooled, unless a run names its own.',
  );
  const testId = /\/tests\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  const stored = (await (await page.request.get(`/api/v1/tests/${testId}`)).json()) as Test;
  expect(stored.baseline_last).toBe(4);

  await page.getByRole('button', { name: 'Edit' }).click();
  await expect(pool).toHaveValue('4');
  await pool.fill('');
  await page.getByRole('button', { name: 'Save test' }).click();
  await expect(page.getByTestId('test-baseline')).toHaveText('Baseline: the newest passing run of this test, unless a run names its own.');
  const cleared = (await (await page.request.get(`/api/v1/tests/${testId}`)).json()) as Test;
  expect(cleared.baseline_last).toBeUndefined();
});

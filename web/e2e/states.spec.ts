import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { BareApi } from './bare-api';

// States that are easy to forget, on a second barrage-api of the spec's own
// (e2e/bare-api.ts): no agent, a default project with no run, and the API
// process stopped and started again. Each state says what it is and the
// next step, axe finds nothing serious on it, and the next step works.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';

const api = new BareApi();
test.beforeAll(async () => {
  test.setTimeout(60_000);
  await api.start();
});
test.afterAll(async () => {
  await api.close();
});

async function serious(page: Page): Promise<string[]> {
  const res = await new AxeBuilder({ page }).analyze();
  return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function signIn(page: Page) {
  await page.goto(`${api.url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);
}

test('an empty project links to New run, which says no agent is connected and how to start one', async ({ page }) => {
  await signIn(page);
  const runs = (await (await page.request.get(`${api.url}/api/v1/runs?project=default`)).json()) as { items: unknown[] };
  expect(runs.items).toHaveLength(0);
  const empty = page.locator('.state').filter({ hasText: 'No runs yet.' });
  await expect(empty).toHaveText('No runs yet. Start a new run.');
  expect(await serious(page)).toEqual([]);

  const link = empty.getByRole('link', { name: 'Start a new run' });
  await link.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/runs\/new$/);
  const agents = (await (await page.request.get(`${api.url}/api/v1/agents`)).json()) as { items: unknown[] };
  expect(agents.items).toHaveLength(0);
  const notice = page.getByTestId('no-agents-notice');
  await expect(notice).toContainText('No agent is connected. A run started now waits in the queue until one is.');
  await expect(notice).toContainText('barrage-agent serve -nats-url');
  expect(await serious(page)).toEqual([]);

  await notice.getByRole('link', { name: 'the Agents page' }).click();
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByTestId('agents-live')).toHaveText('0 of 0 live · 0 of 0 shard slots busy');
  const none = page.getByRole('region', { name: 'No agents online' });
  await expect(none).toContainText('Runs wait in the queue until an agent is online to take them.');
  await expect(none.locator('pre')).toHaveText(
    'barrage-api agent-credentials create agent-1 -o agent-1.creds\nbarrage-agent serve -nats-url nats://NATS_HOST:4222 -creds agent-1.creds',
  );
  expect(await serious(page)).toEqual([]);
});

test('the API stopped: the page says so, keeps what it showed, and Retry works once it is back', async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page);
  // In-app navigation, so the page keeps the runs it loaded.
  await expect(page.locator('.state').filter({ hasText: 'No runs yet.' })).toBeVisible();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
  const none = page.getByRole('region', { name: 'No agents online' });
  await expect(none).toBeVisible();
  const banner = page.getByTestId('api-unreachable');
  await expect(banner).toHaveCount(0);

  // The agents list refreshes every 2 s; with the process gone its calls
  // are refused, and after the query's retries the banner shows.
  await api.stop();
  await expect(banner).toContainText('The API cannot be reached.', { timeout: 30_000 });
  await expect(banner).toHaveAttribute('role', 'alert');
  await expect(none).toBeVisible();
  await expect(page.getByTestId('agents-live')).toHaveText('0 of 0 live · 0 of 0 shard slots busy');
  expect(await serious(page)).toEqual([]);

  // A page already loaded, its runs from before: still shown, with the banner.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs', exact: true }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.locator('.state').filter({ hasText: 'No runs yet.' })).toBeVisible();
  await expect(banner).toBeVisible({ timeout: 30_000 });

  // Retry while it is still down: still down, nothing lost.
  const retry = banner.getByRole('button', { name: 'Retry' });
  await retry.click();
  await expect(retry).toBeEnabled({ timeout: 20_000 });
  await expect(banner).toBeVisible();
  await expect(page.locator('.state').filter({ hasText: 'No runs yet.' })).toBeVisible();

  // Back: Retry, by keyboard, asks again and the banner goes.
  await api.start();
  await retry.focus();
  await page.keyboard.press('Enter');
  await expect(banner).toHaveCount(0, { timeout: 20_000 });
  await expect(page.locator('.state').filter({ hasText: 'No runs yet.' })).toBeVisible();
  // The session held across the restart.
  expect((await page.request.get(`${api.url}/api/v1/me`)).status()).toBe(200);

  // A page not opened before has code still to fetch: with the server gone
  // it says it could not load, and its Retry loads it once the server is back.
  await api.stop();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tests' }).click();
  const failed = page.getByTestId('page-load-error');
  await expect(failed).toContainText('This page could not load');
  await expect(failed).toContainText('The server cannot be reached');
  expect(await serious(page)).toEqual([]);
  await api.start();
  await failed.getByRole('button', { name: 'Retry' }).click();
  await expect(page.locator('.state').filter({ hasText: 'No test stored in this project yet.' })).toBeVisible();
});

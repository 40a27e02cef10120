import { expect, test } from '@playwright/test';
import { formatCount, formatDuration } from '../src/lib/format';
import { port } from '../playwright.config';

// The run page's "Where the time goes" table against the real stack: a plain
// HTTP run has connect and waiting rows whose counts are the connections
// opened and the responses, as the API's result says.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/?delay=5ms`;

type Summary = { count: number; p50_us: number; p90_us: number; p99_us: number; max_us: number };
type Result = { count: number; phases?: Record<string, Summary> };

test('request phases: connect and waiting rows with their counts', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  const created = await page.request.post('/api/v1/runs', {
    data: { project: 'default', name: 'e2e phases', spec: { url: echo, qps: 50, connections: 2, duration: '2s' } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${id}`)).json()) as { status: string }).status, { timeout: 60_000 })
    .toBe('completed');
  const result = (await (await page.request.get(`/api/v1/runs/${id}/result`)).json()) as Result;
  const connect = result.phases?.connect;
  const waiting = result.phases?.waiting;
  expect(connect?.count).toBeGreaterThan(0);
  expect(waiting?.count).toBe(result.count);
  expect(waiting!.p50_us).toBeGreaterThanOrEqual(5000); // the echo's delay is waited for
  expect(result.phases?.tls).toBeUndefined(); // plain HTTP: no handshake

  await page.goto(`/runs/${id}`);
  const table = page.getByRole('region', { name: 'Where the time goes' }).getByRole('table');
  const row = (name: string) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
  await expect(row('connect').getByRole('cell')).toHaveText([
    formatCount(connect!.count),
    formatDuration(connect!.p50_us),
    formatDuration(connect!.p90_us),
    formatDuration(connect!.p99_us),
    formatDuration(connect!.max_us),
  ]);
  await expect(row('waiting').getByRole('cell').first()).toHaveText(formatCount(waiting!.count));
  await expect(row('waiting').getByRole('cell').nth(1)).toHaveText(formatDuration(waiting!.p50_us));
  await expect(table.getByRole('rowheader', { name: 'TLS', exact: true })).toHaveCount(0);
});

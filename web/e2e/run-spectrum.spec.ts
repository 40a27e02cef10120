import { expect, test } from '@playwright/test';
import { formatCount, formatDuration } from '../src/lib/format';
import { port } from '../playwright.config';

// The run page's latency views against the real stack: the percentile
// spectrum shows the result's response, service and lag percentiles as the
// toggle picks them, and the histogram is titled as densities.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/`;

type Summary = { count: number; p50_us: number; p75_us: number; p90_us: number; p99_us: number; p999_us: number; max_us: number };
type Result = { primary: string; response: Summary; service: Summary; lag: Summary };

test('percentile spectrum with its latency toggle, and the density histogram', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  // 100 qps for 3 s: 300 requests, so p99 is resolved and p99.9 is not.
  const created = await page.request.post('/api/v1/runs', {
    data: { project: 'default', name: 'e2e spectrum', spec: { url: echo, qps: 100, duration: '3s' } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${id}`)).json()) as { status: string }).status, { timeout: 60_000 })
    .toBe('completed');
  const result = (await (await page.request.get(`/api/v1/runs/${id}/result`)).json()) as Result;
  expect(result.primary).toBe('response');
  expect(result.response.count).toBeGreaterThanOrEqual(100);
  expect(result.response.count).toBeLessThan(1000);

  await page.goto(`/runs/${id}`);
  const spectrum = page.getByRole('region', { name: 'Percentile spectrum', exact: true });
  const toggle = spectrum.getByRole('radiogroup', { name: 'Latency of the spectrum' });
  await expect(toggle.getByRole('radio', { name: 'Response' })).toBeChecked();
  // The Table view behind the chart holds its points.
  await spectrum.getByText('Table view').click();
  const values = spectrum.getByRole('table');
  const rows = values.locator('tbody').getByRole('row');
  // The 1/(1−p) axis is labelled in percentiles.
  await spectrum.scrollIntoViewIfNeeded();
  await expect(spectrum.locator('svg').getByText('99%', { exact: true })).toBeVisible();

  const want = (s: Summary) => [
    ['p50', formatDuration(s.p50_us)],
    ['p75', formatDuration(s.p75_us)],
    ['p90', formatDuration(s.p90_us)],
    ['p99', formatDuration(s.p99_us)],
    ['max', formatDuration(s.max_us)],
  ];
  for (const [radio, s] of [['Response', result.response], ['Service', result.service], ['Lag', result.lag]] as const) {
    await toggle.getByRole('radio', { name: radio }).check();
    await expect(toggle.getByRole('radio', { name: radio })).toBeChecked();
    await expect(values.locator('caption')).toHaveText(`Percentile spectrum, ${radio.toLowerCase()} time: 5 rows`);
    await expect(values.getByRole('columnheader')).toHaveText(['Percentile', `${radio.toLowerCase()} time`]);
    await expect(spectrum.getByText(`Over ${formatCount(s.count)} requests.`)).toBeVisible();
    await expect(rows).toHaveCount(5);
    for (const [i, [label, v]] of want(s).entries()) await expect(rows.nth(i).getByRole('cell')).toHaveText([label!, v!]);
  }
  // Keyboard: arrows move through the radio group.
  await toggle.getByRole('radio', { name: 'Response' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(toggle.getByRole('radio', { name: 'Service' })).toBeChecked();

  const histogram = page.getByRole('region', { name: 'Latency histogram' });
  await expect(histogram.locator('svg').getByText('requests per ms')).toBeVisible();
  await expect(histogram.locator('svg').getByText('cumulative', { exact: true })).toBeVisible();
  await expect(histogram.locator('svg').getByText('response time', { exact: true })).toBeVisible();
});

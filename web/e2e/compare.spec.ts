import { mkdirSync } from 'node:fs';
import { drawCharts } from './charts';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { formatCount, formatDuration } from '../src/lib/format';
import { port } from '../playwright.config';

// The compare page against the real stack: two 11 s runs at one rate (long
// enough for the change's 95 % interval) and a 2 s run at twice that rate,
// compared two and then three at a time. The page has one
// layout for any number of runs (what differs, the largest changes, every
// figure with its change, the percentile spectra overlaid, the request
// phases), and its numbers are the API's.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/`;
const shots = 'e2e/screenshots';
mkdirSync(shots, { recursive: true });

type Summary = { count: number; p50_us: number; p99_us: number };
type Compared = {
  id: string;
  name: string;
  count?: number;
  p99_us?: number;
  p999_us?: number;
  latency_kind?: string;
  spec?: { qps?: number };
  phases?: Record<string, Summary>;
  change?: { note?: string; estimates: Estimate[]; qps?: QPSChange; error_rate?: ErrorRateChange };
};
type Estimate = { percentile: number; ratio_low: number; ratio_high: number; verdict: string };
type QPSChange = { run_qps: number; reference_qps: number; ratio_low: number; ratio_high: number; verdict: string };
type ErrorRateChange = { run: number; verdict: string };

/** pct shows a ratio as the page's signed change: 1.12 → "+12 %", 0.97 → "−3.0 %". */
function pct(ratio: number): string {
  const d = (ratio - 1) * 100;
  const text = Math.abs(d) >= 10 ? Math.abs(d).toFixed(0) : Math.abs(d).toFixed(1);
  return Number(text) === 0 ? '±0 %' : `${d > 0 ? '+' : '−'}${text} %`;
}

async function startRun(req: APIRequestContext, name: string, query: string, qps: number, duration: string): Promise<string> {
  const res = await req.post('/api/v1/runs', {
    data: { project: 'default', name, spec: { url: `${echo}?${query}`, qps, connections: 2, duration } },
  });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function waitCompleted(req: APIRequestContext, id: string) {
  await expect
    .poll(async () => ((await (await req.get(`/api/v1/runs/${id}`)).json()) as { status: string }).status, { timeout: 60_000 })
    .toBe('completed');
}

async function compared(req: APIRequestContext, ids: string[]): Promise<Compared[]> {
  const res = await req.get(`/api/v1/runs/compare?ids=${ids.join(',')}`);
  expect(res.status()).toBe(200);
  return ((await res.json()) as { items: Compared[] }).items;
}

/** largest is the run whose figure at key moved furthest from the first run's, either way, as the summary picks it. */
function largest(items: Compared[], key: 'p99_us' | 'p999_us') {
  const base = items[0]![key]!;
  let best = { i: 1, ratio: items[1]![key]! / base };
  items.forEach((r, i) => {
    const ratio = r[key]! / base;
    if (i > 0 && Math.abs(Math.log(ratio)) > Math.abs(Math.log(best.ratio))) best = { i, ratio };
  });
  return { ...best, base, value: items[best.i]![key]! };
}

type Summary3 = { p50_us: number; p99_us: number; max_us: number };
type Result = { response: Summary3; service: Summary3; lag: Summary3 };

/**
 * checkSpectrum asserts the overlay of the runs' percentile spectra: one
 * line per run in the table's hues, and its Table view holding the API's
 * percentiles, the comparison's for the reference's latency kind and each
 * run's result's for the others.
 */
async function checkSpectrum(page: Page, items: Compared[]) {
  const results: Result[] = [];
  for (const r of items) {
    const res = await page.request.get(`/api/v1/runs/${r.id}/result`);
    expect(res.status()).toBe(200);
    results.push((await res.json()) as Result);
  }
  const spectrum = page.getByRole('region', { name: 'Percentile spectrum', exact: true });
  const toggle = spectrum.getByRole('radiogroup', { name: 'Latency of the spectrum' });
  await expect(toggle.getByRole('radio', { name: 'Response' })).toBeChecked();
  await spectrum.scrollIntoViewIfNeeded();
  await expect(spectrum.locator('svg .recharts-line-curve')).toHaveCount(items.length);
  const strokes = await spectrum.locator('svg .recharts-line-curve').evaluateAll((els) => els.map((e) => e.getAttribute('stroke')));
  expect(strokes).toEqual(items.map((_, i) => `var(--chart-${i + 1})`));
  await expect(spectrum.locator('.run-legend li')).toHaveText(items.map((r) => r.name));
  await spectrum.getByText('Table view').click();
  const table = spectrum.getByRole('table');
  await expect(table.getByRole('columnheader')).toHaveText(['Percentile', ...items.map((r) => r.name)]);
  const p99 = table.getByRole('row', { name: /^p99 / });
  // The reference's kind is the comparison's: its p99 is the compare API's.
  expect(items.map((r) => r.latency_kind)).toEqual(items.map(() => 'response'));
  await expect(p99.getByRole('cell')).toHaveText(['p99', ...items.map((r) => formatDuration(r.p99_us))]);
  expect(results.map((r) => r.response.p99_us)).toEqual(items.map((r) => r.p99_us));
  for (const [radio, key] of [['Service', 'service'], ['Lag', 'lag']] as const) {
    await toggle.getByRole('radio', { name: radio }).check();
    await expect(table.locator('caption')).toContainText(`Percentile spectrum, ${key} time`);
    await expect(p99.getByRole('cell')).toHaveText(['p99', ...results.map((r) => formatDuration(r[key].p99_us))]);
    await expect(table.getByRole('row', { name: /^max / }).getByRole('cell')).toHaveText(['max', ...results.map((r) => formatDuration(r[key].max_us))]);
  }
  await toggle.getByRole('radio', { name: 'Response' }).check();
  await spectrum.getByText('Table view').click();
}

/** checkPage asserts what the compare page shows for items, in order, and returns its section headings. */
async function checkPage(page: Page, items: Compared[]): Promise<string[]> {
  const layout = page.getByTestId('compare-layout');
  await expect(layout).toBeVisible();
  const summary = page.getByTestId('compare-summary');
  for (const [label, key] of [['p99', 'p99_us'], ['p99.9', 'p999_us']] as const) {
    const want = largest(items, key);
    const row = summary.getByTestId(`summary-${label}`);
    await expect(row).toContainText(items[want.i]!.name);
    await expect(row.getByTestId('summary-values')).toHaveText(`${formatDuration(want.base)} → ${formatDuration(want.value)}`);
    await expect(row.getByTestId('summary-ratio')).toHaveText(`×${want.ratio.toFixed(2)}`);
    await expect(row.getByTestId('summary-words')).toHaveText(/^(([+−]\d+(\.\d)? % (slower|faster))|no change)$/);
    // The chosen run's interval, or why it has none.
    const change = items[want.i]!.change!;
    const e = change.estimates.find((x) => x.percentile === (key === 'p99_us' ? 99 : 99.9));
    if (e) {
      await expect(row.getByTestId('summary-interval')).toContainText(`95 % interval ${pct(e.ratio_low)} … ${pct(e.ratio_high)}: ${e.verdict.replace('_', ' ')}`);
    } else {
      await expect(row.getByTestId('summary-no-interval')).toHaveText(`· no interval: ${change.note}`);
    }
  }
  const table = page.getByTestId('compare-table');
  for (const r of items) {
    await expect(table.locator(`th[data-run-id="${r.id}"]`)).toContainText(r.name);
    await expect(table.locator(`th[data-run-id="${r.id}"]`)).toContainText(`${r.latency_kind} time`);
    await expect(page.getByTestId(`compare-count-${r.id}`)).toHaveText(new RegExp(`^${formatCount(r.count)}(?![\\d,])`));
  }
  // Each later run's change: the 11 s run at the reference's rate has an
  // interval per percentile, drawn as a whisker with its band and verdict;
  // the other says why it has none, as the API does.
  for (const r of items.slice(1)) {
    const change = r.change!;
    if (change.note) {
      expect(change.estimates).toHaveLength(0);
      await expect(page.getByTestId(`change-note-${r.id}`)).toHaveText(`No interval: ${change.note}`);
      continue;
    }
    expect(change.estimates.map((e) => e.percentile)).toEqual([50, 90, 99, 99.9]);
    const col = items.indexOf(r);
    for (const [label, e] of [['p50', change.estimates[0]!], ['p99', change.estimates[2]!]] as const) {
      expect(e.ratio_low).toBeLessThanOrEqual(e.ratio_high);
      const cell = table.getByRole('row', { name: new RegExp(`^${label} `) }).getByRole('cell').nth(col);
      await expect(cell.getByTestId(`interval-p${e.percentile}`)).toContainText(
        `${pct(e.ratio_low)} … ${pct(e.ratio_high)}${e.verdict.replace('_', ' ')}`,
      );
    }
    // Its achieved rate and error rate against the reference's, as the API estimated them.
    const q = change.qps!;
    const er = change.error_rate!;
    expect(er.run).toBe(0);
    expect(er.verdict).toBe('no_change');
    const rate = summary.getByTestId(`rate-change-${col}`);
    await expect(rate.getByTestId('rate-qps')).toContainText(`qps ${q.reference_qps.toFixed(1)} → ${q.run_qps.toFixed(1)}`);
    await expect(rate.getByTestId('rate-qps')).toContainText(`95 % interval ${pct(q.ratio_low)} … ${pct(q.ratio_high)}: ${q.verdict.replace('_', ' ')}`);
    await expect(rate.getByTestId('rate-errors')).toHaveText('errors 0.00 % → 0.00 % (±0 pp, 95 % interval ±0 pp … ±0 pp: no change)');
  }
  await checkSpectrum(page, items);
  const phases = page.getByTestId('compare-phases');
  for (const phase of ['connect', 'waiting'] as const) {
    const row = phases.getByTestId(`phase-${phase}`);
    for (const [i, r] of items.entries()) {
      const p = r.phases![phase]!;
      await expect(row.getByRole('cell').nth(i)).toHaveText(`p50 ${formatDuration(p.p50_us)} · p99 ${formatDuration(p.p99_us)}${formatCount(p.count)} times`);
    }
  }
  return layout.getByRole('heading', { level: 2 }).allTextContents();
}

test('compare 2 and 3 runs: one layout, the API numbers, the spec diff and the phases @own-stack', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  const ref = await startRun(page.request, 'e2e reference', 'delay=2ms', 50, '11s');
  const same = await startRun(page.request, 'e2e same rate', 'delay=4ms', 50, '11s');
  const double = await startRun(page.request, 'e2e double rate', 'delay=2ms', 100, '2s');
  for (const id of [ref, same, double]) await waitCompleted(page.request, id);

  // Two runs at one rate: the diff names the url, not the rate.
  const two = await compared(page.request, [ref, same]);
  expect(two.map((r) => r.spec?.qps)).toEqual([50, 50]);
  expect(two[1]!.change?.note).toBeUndefined();
  expect(two[1]!.change?.estimates).toHaveLength(4);
  await page.goto(`/compare?ids=${ref},${same}`);
  const headingsTwo = await checkPage(page, two);
  const diff = page.getByTestId('spec-diff');
  await expect(diff.getByTestId('spec-diff-url')).toContainText('delay=4ms');
  await expect(diff.getByTestId('spec-diff-qps')).toHaveCount(0);
  await expect(diff).not.toContainText('different rates');
  await drawCharts(page);
  await page.screenshot({ path: `${shots}/compare-2.png`, fullPage: true });

  // Three runs, one at twice the rate: the diff names qps first and warns.
  const three = await compared(page.request, [ref, same, double]);
  expect(three[2]!.change?.note).toMatch(/asked for 50 qps, this run 100 qps/);
  await page.goto(`/compare?ids=${ref},${same},${double}`);
  const headingsThree = await checkPage(page, three);
  await expect(diff.getByTestId('spec-diff-qps').getByRole('cell')).toHaveText(['50 qps', '50 qps', '100 qps']);
  await expect(diff.getByRole('rowheader').first()).toHaveText('qps');
  await expect(diff.getByRole('note')).toContainText('different rates');
  await drawCharts(page);
  await page.screenshot({ path: `${shots}/compare-3.png`, fullPage: true });

  // The same sections, in the same order, for 2 runs as for 3.
  expect(headingsThree).toEqual(headingsTwo);
  expect(headingsTwo).toEqual([
    'What differs between the runs',
    'Largest changes against e2e reference',
    'Percentile spectrum',
    'Where the time goes',
  ]);
});

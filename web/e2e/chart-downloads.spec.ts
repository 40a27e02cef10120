import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { port } from '../playwright.config';

// Every chart card has a Download menu (components/ui/chart-download.tsx):
// the chart as a PNG with its heading and legend, its series as CSV. Against
// the real stack: the run page's latency histogram, requests-per-second,
// spectrum and request timeline charts and the compare page's spectrum give a real PNG and a CSV
// whose rows are the API's figures; the
// menu works by keyboard; and the compare page's Copy link copies a
// permalink that opens the same comparison.
//
// Tagged @own-stack: it adds runs to the default project, which other specs
// count from empty, so make e2e runs it on a stack of its own.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/`;

type Interval = { second: number; qps: number };
type Summary = { count: number; p50_us: number; p75_us: number; p90_us: number; p99_us: number; p999_us: number; max_us: number };

/** download opens card's Download menu by keyboard, picks item, and returns the file's name and bytes. */
async function download(page: Page, card: Locator, item: 'PNG image' | 'CSV data') {
  const menu = card.getByRole('button', { name: /^Download / });
  await menu.focus();
  await page.keyboard.press('Enter');
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  const [file] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: item }).click()]);
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toBeFocused();
  return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()) };
}

function expectPng(bytes: Buffer) {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  // IHDR: width and height, at twice the chart's size.
  expect(bytes.readUInt32BE(16)).toBeGreaterThan(400);
  expect(bytes.readUInt32BE(20)).toBeGreaterThan(400);
  expect(bytes.length).toBeGreaterThan(5_000);
}

/**
 * linePixels draws the PNG in the page and counts its pixels of the colour
 * rgb (within 24 per channel), from row fromRow down: a line drawn in a CSS
 * variable's colour is there only if the export resolved the variable.
 */
async function linePixels(page: Page, bytes: Buffer, rgb: [number, number, number], fromRow = 0): Promise<number> {
  return page.evaluate(
    async ({ b64, rgb, fromRow }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.naturalWidth;
      c.height = img.naturalHeight;
      const ctx = c.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const d = ctx.getImageData(0, fromRow, c.width, c.height - fromRow).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) {
        if (Math.abs(d[i]! - rgb[0]) < 24 && Math.abs(d[i + 1]! - rgb[1]) < 24 && Math.abs(d[i + 2]! - rgb[2]) < 24) n++;
      }
      return n;
    },
    { b64: bytes.toString('base64'), rgb, fromRow },
  );
}

function csvRows(bytes: Buffer): string[][] {
  return bytes.toString('utf8').trimEnd().split('\r\n').map((l) => l.split(','));
}

async function serious(page: Page): Promise<string[]> {
  const res = await new AxeBuilder({ page }).analyze();
  return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
}

/** spectrumWant is the spectrum's rows for a summary: the percentiles its count resolves, then max. */
function spectrumWant(s: Summary): [string, number][] {
  const all: [string, number, number][] = [['p50', 0.5, s.p50_us], ['p75', 0.75, s.p75_us], ['p90', 0.9, s.p90_us], ['p99', 0.99, s.p99_us], ['p99.9', 0.999, s.p999_us]];
  return [...all.filter(([, p]) => 1 / (1 - p) <= s.count).map(([l, , v]) => [l, v] as [string, number]), ['max', s.max_us]];
}

test('charts download as PNG and CSV, and a comparison copies its permalink @own-stack', async ({ page, context }) => {
  test.setTimeout(120_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  expect((await page.request.post('/api/v1/auth/login', { data: { email, password } })).status()).toBe(200);
  const ids: string[] = [];
  for (const name of ['chart a', 'chart b']) {
    const res = await page.request.post('/api/v1/runs', { data: { project: 'default', name, spec: { url: echo, qps: 50, connections: 2, duration: '3s' } } });
    expect(res.status(), await res.text()).toBe(201);
    ids.push(((await res.json()) as { id: string }).id);
  }
  for (const id of ids) {
    await expect
      .poll(async () => ((await (await page.request.get(`/api/v1/runs/${id}`)).json()) as { status: string }).status, { timeout: 60_000 })
      .toBe('completed');
  }
  const [a, b] = ids as [string, string];
  const intervals = ((await (await page.request.get(`/api/v1/runs/${a}/intervals?limit=1000`)).json()) as { items: Interval[] }).items;
  expect(intervals.length).toBeGreaterThanOrEqual(3);
  const resultOf = async (id: string) => ((await (await page.request.get(`/api/v1/runs/${id}/result`)).json()) as { response: Summary });

  await page.goto(`/runs/${a}`);
  await expect(page.getByTestId('run-status')).toHaveText('completed');

  // The latency histogram, drawn by hand (histogram-plot.tsx): a bar per bucket of the run's Fortio
  // histogram that holds a request, a pointer over a bar shows that bucket's count, and its PNG
  // has the cumulative line in --chart-1.
  const fortio = (await (await page.request.get(`/api/v1/runs/${a}/result?format=fortio`)).json()) as {
    DurationHistogram: { Data: { Start: number; End: number; Count: number }[] };
  };
  const buckets = fortio.DurationHistogram.Data.filter((d) => d.Count > 0).sort((x, y) => x.Start - y.Start);
  expect(buckets.length).toBeGreaterThan(0);
  const histogram = page.getByRole('region', { name: 'Latency histogram' });
  const bars = histogram.locator('.run-histogram-bars rect');
  await expect(bars).toHaveCount(buckets.length);
  const fullest = buckets.reduce((best, d, i) => (d.Count > buckets[best]!.Count ? i : best), 0);
  await bars.nth(fullest).hover();
  await expect(histogram.locator('.histogram-tip')).toContainText(`requests in bucket: ${buckets[fullest]!.Count.toLocaleString('en-US')}`);
  const histPng = await download(page, histogram, 'PNG image');
  expect(histPng.name).toBe('latency-histogram-response-time.png');
  expectPng(histPng.bytes);
  expect(await linePixels(page, histPng.bytes, [0xc2, 0x41, 0x0c])).toBeGreaterThan(200);

  // Requests per second: a row per second the API holds, its qps as the API gives it.
  const qps = page.getByRole('region', { name: 'Requests per second' });
  await qps.scrollIntoViewIfNeeded(); // the chart is drawn once on screen (chart-area.tsx)
  await expect(qps.locator('.recharts-wrapper > svg')).toBeVisible();
  const qpsPng = await download(page, qps, 'PNG image');
  expect(qpsPng.name).toBe('requests-per-second.png');
  expectPng(qpsPng.bytes);
  // The achieved line, in --chart-1 (#c2410c, styles.css), drawn 2 px wide at 2x.
  expect(await linePixels(page, qpsPng.bytes, [0xc2, 0x41, 0x0c])).toBeGreaterThan(500);
  // The card's heading above the chart (28 px) and its legend below (a row of 20 px and 8 of
  // padding), at 2x: the PNG is taller than the chart by both, and the legend's achieved
  // swatch is there in its colour, below the chart.
  const box = (await qps.locator('.recharts-wrapper > svg').boundingBox())!;
  const pngHeight = qpsPng.bytes.readUInt32BE(20);
  expect(pngHeight).toBe(Math.round((box.height + 28 + 28) * 2));
  expect(await linePixels(page, qpsPng.bytes, [0xc2, 0x41, 0x0c], Math.round((box.height + 28) * 2))).toBeGreaterThan(20);
  const qpsCsv = await download(page, qps, 'CSV data');
  expect(qpsCsv.name).toBe('requests-per-second.csv');
  const rows = csvRows(qpsCsv.bytes);
  expect(rows[0]).toEqual(['second', 'achieved_qps', 'target_qps', 'generator_limited']);
  expect(rows.slice(1).map((r) => [Number(r[0]), Number(r[1]), Number(r[2])])).toEqual(intervals.map((iv) => [iv.second, iv.qps, 50]));

  // The spectrum: the result's response percentiles.
  const spectrum = page.getByRole('region', { name: 'Percentile spectrum', exact: true });
  await spectrum.scrollIntoViewIfNeeded();
  await expect(spectrum.locator('.recharts-wrapper > svg')).toBeVisible();
  expectPng((await download(page, spectrum, 'PNG image')).bytes);
  const specCsv = await download(page, spectrum, 'CSV data');
  expect(specCsv.name).toBe('percentile-spectrum-response-time.csv');
  const resA = await resultOf(a);
  expect(csvRows(specCsv.bytes)).toEqual([['percentile', 'response time (µs)'], ...spectrumWant(resA.response).map(([l, v]) => [l, String(v)])]);

  // The request timeline: a PNG, and the API's timeline CSV, a row per sampled request.
  const timeline = page.getByRole('region', { name: 'Request timeline' });
  await timeline.scrollIntoViewIfNeeded();
  await expect(timeline.locator('.recharts-wrapper > svg')).toBeVisible();
  expectPng((await download(page, timeline, 'PNG image')).bytes);
  const tlCsv = await download(page, timeline, 'CSV data');
  expect(tlCsv.name).toBe('request-timeline.csv');
  const tlRows = tlCsv.bytes.toString('utf8').trimEnd().split(/\r?\n/).map((l) => l.split(','));
  expect(tlRows[0]).toEqual(['intended_us', 'sent_us', 'latency_us', 'code', 'ok', 'entry']);
  const sampled = Number(/^([\d,]+) of/.exec((await timeline.getByTestId('timeline-note').textContent()) ?? '')?.[1]?.replaceAll(',', ''));
  expect(tlRows.length - 1).toBe(sampled);

  // Escape closes the menu and gives focus back; axe with the menu open.
  const menu = qps.getByRole('button', { name: 'Download Requests per second' });
  await menu.click();
  await expect(qps.getByRole('button', { name: 'PNG image' })).toBeVisible();
  expect(await serious(page)).toEqual([]);
  await page.keyboard.press('Tab');
  await expect(qps.getByRole('button', { name: 'PNG image' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(qps.getByRole('button', { name: 'PNG image' })).toHaveCount(0);
  await expect(menu).toBeFocused();

  // The compare page: its spectrum has a column per run, and Copy link copies the permalink.
  await page.goto(`/compare?ids=${a},${b}`);
  await expect(page.getByTestId('compare-layout')).toBeVisible();
  const overlay = page.getByTestId('spectrum');
  const service = overlay.getByRole('radio', { name: 'Service' });
  await service.check();
  await expect(page).toHaveURL(/spectrum=service/);
  const cmpCsv = await download(page, overlay, 'CSV data');
  expect(cmpCsv.name).toBe('percentile-spectrum-service-time.csv');
  const cmpRows = csvRows(cmpCsv.bytes);
  expect(cmpRows[0]).toEqual(['percentile', 'chart a service time (µs)', 'chart b service time (µs)']);
  const resB = (await (await page.request.get(`/api/v1/runs/${b}/result`)).json()) as { service: Summary };
  const resA2 = (await (await page.request.get(`/api/v1/runs/${a}/result`)).json()) as { service: Summary };
  expect(cmpRows.find((r) => r[0] === 'p50')).toEqual(['p50', String(resA2.service.p50_us), String(resB.service.p50_us)]);
  expectPng((await download(page, overlay, 'PNG image')).bytes);

  await page.getByRole('button', { name: 'Copy link' }).click();
  await expect(page.getByTestId('copy-link-status')).toHaveText('Link copied.');
  expect(await serious(page)).toEqual([]);
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(page.url());
  const url = new URL(copied);
  expect(url.searchParams.get('ids')).toBe(`${a},${b}`);
  expect(url.searchParams.get('spectrum')).toBe('service');
  const again = await context.newPage();
  await again.goto(copied);
  await expect(again.getByTestId('compare-layout')).toBeVisible();
  await expect(again.getByTestId('spectrum').getByRole('radio', { name: 'Service' })).toBeChecked();
  await again.close();
});

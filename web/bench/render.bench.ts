import { writeFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { fortio, intervalPage, result, run, runId } from './fake-run';

// Times the run page's charts for a short run and for a 1-hour run (3,600
// seconds × 4 series): from the moment the last of the run's API answers
// (run, intervals pages, result, histogram) has been read to the frame in
// which every chart line is drawn. Writes the medians to $WEB_BENCH_OUT as
// JSON. The window is tall enough to hold the whole page: a chart is drawn
// once it is on the screen (src/components/ui/chart-area.tsx), and this
// bench times them all.

const reps = Number(process.env.WEB_BENCH_REPS ?? 5);
const out = process.env.WEB_BENCH_OUT ?? 'test-results/render.json';
const wholePage = { viewport: { width: 1280, height: 6000 } };

function json(body: unknown, status = 200) {
  return { status, contentType: status < 300 ? 'application/json' : 'application/problem+json', body: JSON.stringify(body) };
}

async function fakeApi(page: Page, n: number) {
  await page.route('**/api/v1/**', (route) => {
    const url = new URL(route.request().url());
    const p = url.pathname.replace('/api/v1', '');
    if (p === '/me') {
      return route.fulfill(json({
        user: { id: '0190a1b2-c3d4-7e5f-8a9b-000000000009', email: 'bench@barrage.local', name: 'Bench', is_admin: true },
        projects: [{ project: { id: '0190a1b2-c3d4-7e5f-8a9b-000000000001', slug: 'default', name: 'Default', description: '', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' }, role: 'admin' }],
      }));
    }
    if (p === `/runs/${runId}`) return route.fulfill(json(run(n)));
    if (p === `/runs/${runId}/intervals`) return route.fulfill(json(intervalPage(n, url.searchParams)));
    if (p === `/runs/${runId}/result`) {
      return route.fulfill(json(url.searchParams.get('format') === 'fortio' ? fortio(n) : result(n)));
    }
    if (p === `/runs/${runId}/events`) {
      return route.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        body: `id: ${n}.2\nevent: status\ndata: {"run_id":"${runId}","status":"completed"}\n\nid: ${n}.2\nevent: result\ndata: ${JSON.stringify(result(n))}\n\n`,
      });
    }
    return route.fulfill(json({ type: 'https://barrage.dev/problems/not-found', title: 'Not found', status: 404 }, 404));
  });
  // Note when the last answer about the run has been read, in the page's clock.
  await page.addInitScript(() => {
    const w = window as unknown as { __dataDone: number; fetch: typeof fetch };
    w.__dataDone = 0;
    const orig = w.fetch.bind(window);
    w.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await orig(input, init);
      const url = input instanceof Request ? input.url : String(input);
      if (url.includes('/api/v1/runs/') && !url.includes('/events')) {
        void res.clone().text().then(() => {
          w.__dataDone = Math.max(w.__dataDone, performance.now());
        });
      }
      return res;
    };
  });
}

/** lines counts drawn chart lines (a path with a d attribute). */
const lines = () => Array.from(document.querySelectorAll('path.recharts-curve.recharts-line-curve')).filter((p) => (p.getAttribute('d') ?? '').length > 0).length;

async function measure(page: Page, n: number, want: number): Promise<number> {
  await fakeApi(page, n);
  await page.goto(`/runs/${runId}`);
  await page.waitForFunction((k) => {
    const drawn = Array.from(document.querySelectorAll('path.recharts-curve.recharts-line-curve')).filter((p) => (p.getAttribute('d') ?? '').length > 0).length;
    return drawn >= k && (window as unknown as { __dataDone: number }).__dataDone > 0;
  }, want, { polling: 'raf', timeout: 60_000 });
  return page.evaluate(() => performance.now() - (window as unknown as { __dataDone: number }).__dataDone);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

test('run page chart render time', async ({ browser }) => {
  // How many lines the result page draws, from a short run.
  const probe = await browser.newPage(wholePage);
  await fakeApi(probe, 60);
  await probe.goto(`/runs/${runId}`);
  await probe.waitForLoadState('networkidle');
  await probe.waitForTimeout(1500);
  const want = await probe.evaluate(lines);
  await probe.close();
  expect(want).toBeGreaterThanOrEqual(4);

  const figures: Record<string, number[]> = { '60': [], '3600': [] };
  for (let i = 0; i < reps; i++) {
    for (const n of [60, 3600]) {
      const page = await browser.newPage(wholePage);
      figures[String(n)]!.push(await measure(page, n, want));
      await page.close();
    }
  }
  const summary = {
    lines: want,
    reps,
    short_ms: median(figures['60']!),
    hour_ms: median(figures['3600']!),
    hour_all_ms: figures['3600']!.map((x) => Math.round(x)),
    short_all_ms: figures['60']!.map((x) => Math.round(x)),
  };
  writeFileSync(out, JSON.stringify(summary, null, 2));
  console.log(JSON.stringify(summary));
});

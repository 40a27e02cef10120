import { writeFileSync } from 'node:fs';
import { test, type Page } from '@playwright/test';
import { fortio, interval, intervalPage, result, run, runId } from './fake-run';
import { drawnLines, perSecond } from './probes';
import { median, real, signedIn } from './real-api';

// Times the result page of a 1-hour run on 20 agents, with the merged charts
// (default) and with "Per agent" on (?agents=on: 20 lines in each of the rate
// and latency charts, from 72,000 per-shard rows). Charts are drawn once they
// come near the screen (src/components/ui/chart-area.tsx), so two figures:
//   - open: from navigation start to the frame in which the result summary
//     and every chart on the first screen are drawn; also the time from the
//     last API answer read before that frame;
//   - scroll: from scrolling the per-second charts into view to the frame in
//     which every line of theirs is drawn;
//   - from the list: with the dashboard already open on the runs list (a fresh
//     context each time, so its code and the list are loaded, the run's data
//     is not), from the click on the run's name to the frame in which its
//     first screen is drawn: how a user opens a result most often.
// Writes the medians to $WEB_BENCH_OUT (default test-results/agents.json).

const reps = Number(process.env.WEB_BENCH_REPS ?? 3);
const out = process.env.WEB_BENCH_OUT ?? 'test-results/agents.json';

// With WEB_BENCH_API set (real-api.ts), the page is timed against that real
// barrage-api instead of the fake API below.
const seconds = real?.seconds ?? 3600;
const agents = real?.shards ?? 20;
const runPath = `${real?.base ?? ''}/runs/${real?.run ?? runId}`;

function json(body: unknown, status = 200) {
  return { status, contentType: status < 300 ? 'application/json' : 'application/problem+json', body: JSON.stringify(body) };
}

function shardRow(s: number, k: number) {
  const iv = interval(s);
  const share = (1 + 0.05 * Math.sin(k + s / 11)) / agents;
  return {
    second: s, shard: k, agent_name: `agent-${k + 1}`, count: Math.round(iv.count * share), errors: 0, qps: iv.qps * share,
    service_p50_us: iv.service.p50_us, service_p99_us: iv.service.p99_us * (1 + k / 100), response_p99_us: iv.response.p99_us * (1 + k / 100),
    lag_p99_us: iv.lag.p99_us, cpu_used: 0.4 + 0.01 * k, cpu_cores: 2,
  };
}

// The fake API's answers by URL, built on first use: the probe loads build them
// all, so the timed loads measure the page and the transfer, not the bench's
// own JSON building on the same cores (a real API reads a page of intervals
// in a few ms: bench/results/control-plane-2026-11-27-quiet.md).
const answers = new Map<string, Answer>();

async function fakeApi(page: Page) {
  await page.route('**/api/v1/**', (route) => {
    const key = route.request().url();
    let answer = answers.get(key);
    if (!answer) {
      answer = build(new URL(key));
      answers.set(key, answer);
    }
    return route.fulfill(answer);
  });
  await instrument(page);
}

type Answer = { status: number; contentType: string; body: string };

/** build is the fake API's answer to url. */
function build(url: URL): Answer {
  const n = seconds;
  const p = url.pathname.replace('/api/v1', '');
  if (p === '/me') {
    return json({
      user: { id: '0190a1b2-c3d4-7e5f-8a9b-000000000009', email: 'bench@barrage.local', name: 'Bench', is_admin: true },
      projects: [{ project: { id: '0190a1b2-c3d4-7e5f-8a9b-000000000001', slug: 'default', name: 'Default', description: '', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' }, role: 'admin' }],
    });
  }
  if (p === `/runs/${runId}`) return json({ ...run(n), shard_count: agents });
  if (p === '/runs') return json({ items: [{ ...run(n), shard_count: agents }] });
  const from = Number(url.searchParams.get('from') ?? 0);
  const to = Math.min(n, from + Number(url.searchParams.get('limit') ?? 300));
  if (p === `/runs/${runId}/intervals`) return json(intervalPage(n, url.searchParams));
  if (p === `/runs/${runId}/shards/intervals`) {
    const items = [];
    for (let s = from; s < to; s++) for (let k = 0; k < agents; k++) items.push(shardRow(s, k));
    return json(to < n ? { items, next_from: to } : { items });
  }
  if (p === `/runs/${runId}/result`) return json(url.searchParams.get('format') === 'fortio' ? fortio(n) : result(n));
  if (p === `/runs/${runId}/events`) {
    return { status: 200, contentType: 'text/event-stream', body: `id: ${n}.2\nevent: status\ndata: {"run_id":"${runId}","status":"completed"}\n\n` };
  }
  return json({ type: 'https://barrage.dev/problems/not-found', title: 'Not found', status: 404 }, 404);
}

/** instrument records, in window.__dataDone, when the page last finished reading an API answer. */
async function instrument(page: Page) {
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

/** prepare makes page read the fake API, or only instruments it against the real one. */
async function prepare(page: Page) {
  if (real) await instrument(page);
  else await fakeApi(page);
}

/** firstScreenDrawn reports whether the result summary and every chart on the screen are drawn, with the API read. */
function firstScreenDrawn(): boolean {
  const summary = document.querySelector('[aria-label="Result summary"]');
  const areas = Array.from(document.querySelectorAll('.chart')).filter((c) => {
    const r = c.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  });
  const drawn = areas.length > 0 && areas.every((a) => a.querySelector('.recharts-wrapper > svg path, svg.chart-svg path'));
  return !!summary && drawn && (window as unknown as { __dataDone: number }).__dataDone > 0;
}

/**
 * fromList opens the runs list, waits until it has settled, then clicks the run's name: ms from the click to the
 * frame in which the run's first screen is drawn.
 */
async function fromList(page: Page): Promise<number> {
  await prepare(page);
  await page.goto(`${real?.base ?? ''}/runs`);
  const link = page.locator(`a[href="/runs/${real?.run ?? runId}"]`).first();
  await link.waitFor({ timeout: 120_000 });
  await page.waitForLoadState('networkidle');
  const t0 = await page.evaluate(() => {
    (window as unknown as { __dataDone: number }).__dataDone = 0;
    return performance.now();
  });
  await link.click();
  await page.waitForFunction(firstScreenDrawn, undefined, { polling: 'raf', timeout: 120_000 });
  return (await page.evaluate(() => performance.now())) - t0;
}

/**
 * open loads the page and returns, at the frame its first screen is drawn: ms from navigation start, ms from the
 * last API answer, and the page's main-thread busy time so far (Chromium's TaskDuration, ms), which moves less
 * than the wall clock with what else the machine's cores run.
 */
async function open(page: Page, query: string): Promise<[number, number, number]> {
  await prepare(page);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(`${runPath}${query}`);
  await page.waitForFunction(firstScreenDrawn, undefined, { polling: 'raf', timeout: 120_000 });
  const [at, afterData] = await page.evaluate(() => [performance.now(), performance.now() - (window as unknown as { __dataDone: number }).__dataDone] as [number, number]);
  const { metrics } = await cdp.send('Performance.getMetrics');
  const busy = (metrics.find((m) => m.name === 'TaskDuration')?.value ?? Number.NaN) * 1000;
  await cdp.detach();
  return [at, afterData, busy];
}

/** scroll brings the per-second charts into view and returns the ms to all want of their lines drawn. */
async function scroll(page: Page, want: number): Promise<number> {
  await page.waitForSelector(perSecond, { state: 'attached', timeout: 120_000 });
  const t0 = await page.evaluate((sel) => {
    document.querySelector(sel)!.scrollIntoView();
    return performance.now();
  }, perSecond);
  await page.waitForFunction(drawnLines, want, { polling: 'raf', timeout: 120_000 });
  return (await page.evaluate(() => performance.now())) - t0;
}

test('1-hour 20-agent result page open time', async ({ browser }) => {
  test.setTimeout(600_000);
  // How many lines each view draws, from one untimed load.
  const views: Record<string, { query: string; want: number }> = { merged: { query: '', want: 0 }, perAgent: { query: '?agents=on', want: 0 } };
  const storageState = await signedIn(browser);
  for (const v of Object.values(views)) {
    const probe = await browser.newPage({ storageState });
    await prepare(probe);
    await probe.goto(`${runPath}${v.query}`);
    await probe.waitForSelector(perSecond, { state: 'attached', timeout: 120_000 });
    await probe.locator(perSecond).scrollIntoViewIfNeeded();
    await probe.waitForLoadState('networkidle');
    if (v.query) await probe.waitForFunction((k) => document.querySelectorAll('[data-testid="agent-latency-chart"] path.recharts-line-curve').length >= k, agents, { timeout: 120_000 });
    await probe.waitForTimeout(2000);
    v.want = (await probe.evaluate(drawnLines, 0)) || 0;
    await probe.close();
  }
  if (views.perAgent!.want < 2 * agents) throw new Error(`per agent view drew ${views.perAgent!.want} lines, want at least ${2 * agents}`);
  const figures: Record<string, { open: number[]; afterData: number[]; busy: number[]; scroll: number[] }> = {
    merged: { open: [], afterData: [], busy: [], scroll: [] },
    perAgent: { open: [], afterData: [], busy: [], scroll: [] },
  };
  const listed: number[] = [];
  for (let i = 0; i < reps; i++) {
    const list = await browser.newPage({ storageState });
    listed.push(await fromList(list));
    await list.close();
    for (const [name, v] of Object.entries(views)) {
      const page = await browser.newPage({ storageState });
      const [openMs, afterMs, busyMs] = await open(page, v.query);
      figures[name]!.open.push(openMs);
      figures[name]!.afterData.push(afterMs);
      figures[name]!.busy.push(busyMs);
      figures[name]!.scroll.push(await scroll(page, v.want));
      await page.close();
    }
  }
  const summary = Object.fromEntries(Object.entries(figures).map(([k, f]) => [k, {
    open_ms: median(f.open), after_data_ms: median(f.afterData), busy_ms: median(f.busy), scroll_ms: median(f.scroll),
    open_all_ms: f.open.map(Math.round), after_data_all_ms: f.afterData.map(Math.round), busy_all_ms: f.busy.map(Math.round), scroll_all_ms: f.scroll.map(Math.round),
  }]));
  const lines = Object.fromEntries(Object.entries(views).map(([k, v]) => [k, v.want]));
  const api = real ? 'real' : 'fake';
  const fromListMs = { open_ms: median(listed), open_all_ms: listed.map(Math.round) };
  const figuresOut = { api, reps, seconds, agents, lines, ...summary, fromList: fromListMs };
  writeFileSync(out, JSON.stringify(figuresOut, null, 2));
  console.log(JSON.stringify(figuresOut));
});

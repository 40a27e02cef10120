import { writeFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { drawnLines, perSecond } from './probes';
import { median, real, signedIn } from './real-api';

// Watches the live view of a run an hour in, on 20 agents, against the real
// API: `ingestbench -scenario big-run -live N` (bench/web-big-run) publishes
// all but the run's last N seconds at once, then one second of every shard a
// second, as agents do, while this bench watches. For the merged view and
// for "Per agent" on (?agents=on), in a fresh page each, once the per-second
// charts are in view and drawn, it records when the first live second was
// drawn (ms from navigation start), then for WEB_BENCH_WATCH_MS (default
// 15 s):
//   - the frames the page drew (requestAnimationFrame): how many a second,
//     and the gaps between them, p50, p95 and the longest;
//   - the main thread's long tasks (over 50 ms): their share of the time and
//     the longest;
//   - how often the per-second charts' lines were redrawn, a second.
// Writes the figures to $WEB_BENCH_OUT (default test-results/live.json).

const watchMs = Number(process.env.WEB_BENCH_WATCH_MS ?? 15_000);
const out = process.env.WEB_BENCH_OUT ?? 'test-results/live.json';

type Watched = { frames: number[]; longTasks: number[]; redraws: number; ms: number };

/** watch runs in the page: it records frames, long tasks and redraws of the per-second lines for ms. */
function watch([ms, sel]: [number, string]): Promise<Watched> {
  return new Promise((done) => {
    const frames: number[] = [];
    const longTasks: number[] = [];
    let redraws = 0;
    const tasks = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push(e.duration);
    });
    tasks.observe({ type: 'longtask' });
    // One redraw is a frame in which some line's path changed or was replaced.
    let changed = false;
    const line = (n: Node) => n instanceof Element && (n.matches('path.recharts-line-curve') || n.querySelector('path.recharts-line-curve') !== null);
    const lines = new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes' ? line(r.target) : Array.from(r.addedNodes).some(line)) changed = true;
      }
    });
    lines.observe(document.querySelector(sel)!, { subtree: true, childList: true, attributes: true, attributeFilter: ['d'] });
    const t0 = performance.now();
    const frame = (t: number) => {
      frames.push(t);
      if (changed) redraws++;
      changed = false;
      if (t - t0 < ms) {
        requestAnimationFrame(frame);
        return;
      }
      tasks.disconnect();
      lines.disconnect();
      done({ frames, longTasks, redraws, ms: t - t0 });
    };
    requestAnimationFrame(frame);
  });
}

/**
 * firstLive runs in the page once its lines are drawn: the ms from navigation
 * start to the first frame in which a line is redrawn, a live second drawn;
 * -1 when none is within ms.
 */
function firstLive([ms, sel]: [number, string]): Promise<number> {
  return new Promise((done) => {
    const line = (n: Node) => n instanceof Element && (n.matches('path.recharts-line-curve') || n.querySelector('path.recharts-line-curve') !== null);
    const timer = setTimeout(() => {
      seen.disconnect();
      done(-1);
    }, ms);
    const seen = new MutationObserver((records) => {
      if (!records.some((r) => (r.type === 'attributes' ? line(r.target) : Array.from(r.addedNodes).some(line)))) return;
      seen.disconnect();
      clearTimeout(timer);
      requestAnimationFrame((t) => done(t));
    });
    seen.observe(document.querySelector(sel)!, { subtree: true, childList: true, attributes: true, attributeFilter: ['d'] });
  });
}

/** status is the run's status as the API has it now. */
async function status(page: Page): Promise<string> {
  const res = await page.request.get(`${real!.base}/api/v1/runs/${real!.run}`);
  return ((await res.json()) as { status: string }).status;
}

/** figures sums up one watch. */
function figures(w: Watched) {
  const gaps = w.frames.slice(1).map((t, i) => t - w.frames[i]!);
  const sorted = [...gaps].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0;
  const busy = w.longTasks.reduce((a, b) => a + b, 0);
  return {
    watched_ms: Math.round(w.ms),
    fps: Math.round((gaps.length / w.ms) * 1000 * 10) / 10,
    frame_p50_ms: median(gaps),
    frame_p95_ms: Math.round(p95),
    frame_max_ms: Math.round(sorted.at(-1) ?? 0),
    long_tasks: w.longTasks.length,
    long_task_share_pct: Math.round((busy / w.ms) * 1000) / 10,
    long_task_max_ms: Math.round(Math.max(0, ...w.longTasks)),
    redraws_per_s: Math.round((w.redraws / w.ms) * 1000 * 10) / 10,
  };
}

test('live view of a 1-hour 20-agent run', async ({ browser }) => {
  test.skip(!real?.live, 'needs WEB_BENCH_API from ingestbench -scenario big-run -live N (bench/web-big-run)');
  test.setTimeout(300_000);
  const storageState = await signedIn(browser);
  const views = { merged: '', perAgent: '?agents=on' };
  const result: Record<string, ReturnType<typeof figures> & { lines: number; first_live_ms: number }> = {};
  for (const [name, query] of Object.entries(views)) {
    const page = await browser.newPage({ storageState });
    await page.goto(`${real!.base}/runs/${real!.run}${query}`);
    await page.getByRole('region', { name: 'Live figures' }).waitFor({ timeout: 60_000 });
    await page.waitForSelector(perSecond, { state: 'attached', timeout: 60_000 });
    // Scrolled to again until drawn: the cards above may still grow (their reads answering) and push them off the screen.
    const want = query ? 2 * real!.shards : 2;
    await expect
      .poll(async () => {
        await page.locator(perSecond).scrollIntoViewIfNeeded();
        return (await page.evaluate(drawnLines, 0)) || 0;
      }, { timeout: 60_000 })
      .toBeGreaterThanOrEqual(want);
    const first = await page.evaluate(firstLive, [60_000, perSecond] as [number, string]);
    await page.waitForTimeout(2_000);
    const watched = await page.evaluate(watch, [watchMs, perSecond] as [number, string]);
    const lines = (await page.evaluate(drawnLines, 0)) || 0;
    const now = await status(page);
    await page.close();
    // The figures count only if the run was live all the while.
    if (now !== 'running') throw new Error(`the run was ${now} by the end of the ${name} view's watch: give ingestbench a longer -live`);
    result[name] = { first_live_ms: Math.round(first), ...figures(watched), lines };
  }
  const summary = { seconds: real!.seconds, agents: real!.shards, watch_ms: watchMs, ...result };
  writeFileSync(out, JSON.stringify(summary, null, 2));
  console.log(JSON.stringify(summary));
});

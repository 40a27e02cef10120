// A page's first reads, asked for as soon as the main bundle starts to run,
// before React, the router and the page's own code are ready to ask: on a
// first visit they answer while that code still compiles, not after it. The
// API client (lib/api-client.ts) takes each answer for the same GET once.
// barrage-api announces the same reads as fetch preloads in the page's
// index.html, so these requests are answered from those, started earlier.

import firstScreen from '@/first-screen.json';

/** An early answer is given out for this long after it was asked for; later the page asks afresh. */
const lifetime = 10_000;

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * matchPage finds the page of src/first-screen.json whose path pattern
 * matches path, with the values of its ":name" segments, which match a UUID
 * only. barrage-api matches the same table the same way to announce a page's
 * code and reads in its index.html (services/api/internal/httpapi/first_screen.go).
 */
function matchPage(path: string): { page: (typeof firstScreen.pages)[number]; params: Map<string, string> } | undefined {
  const got = path.replace(/(.)\/$/, '$1').split('/');
  for (const page of firstScreen.pages) {
    const want = page.path.split('/');
    if (want.length !== got.length) continue;
    const params = new Map<string, string>();
    const ok = want.every((seg, i) => {
      const value = got[i]!;
      if (!seg.startsWith(':')) return seg === value;
      params.set(seg, value);
      return uuid.test(value);
    });
    if (ok) return { page, params };
  }
  return undefined;
}

/**
 * firstReads lists the API reads, path and query as the API client writes
 * them, that the page at path needs for its first screen, from
 * src/first-screen.json: the shell's sign-in check and how one may sign in
 * (app/router.tsx), then the page's own (a run's page: the run, its result
 * and its histogram, as features/runs/api/prefetch-run.ts reads them). The
 * sign-in page has no shell, and reads only how one may sign in.
 */
export function firstReads(path: string): string[] {
  const m = matchPage(path);
  const reads = m?.page.shell === false ? [] : [...firstScreen.shellReads];
  if (!m) return reads;
  for (const read of m.page.reads) reads.push(read.replace(/:[A-Za-z]+/g, (name) => m.params.get(name) ?? name));
  return reads;
}

interface Early {
  at: number;
  answer: Promise<Response>;
}

const started = new Map<string, Early>();

/** startEarlyReads asks for the first reads of the page at path, on origin. */
export function startEarlyReads(origin: string, path: string, now = Date.now()): void {
  for (const read of firstReads(path)) {
    const url = new URL(read, origin).href;
    const answer = fetch(url, { credentials: 'same-origin' });
    // A failed read nobody takes is not an error of the page's; one taken fails where it is taken.
    answer.catch(() => undefined);
    started.set(url, { at: now, answer });
  }
}

/** takeEarly gives out, once, the early answer to a GET of the same URL, if one was asked for within lifetime. */
export function takeEarly(req: Request, now = Date.now()): Promise<Response> | undefined {
  if (req.method !== 'GET') return undefined;
  const early = started.get(req.url);
  if (!early) return undefined;
  started.delete(req.url);
  return now - early.at <= lifetime ? early.answer : undefined;
}

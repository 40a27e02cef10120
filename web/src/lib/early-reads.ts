// A page's first reads, asked for as soon as the main bundle starts to run,
// before React, the router and the page's own code are ready to ask: on a
// first visit they answer while that code still compiles, not after it. The
// API client (lib/api-client.ts) takes each answer for the same GET once.

/** An early answer is given out for this long after it was asked for; later the page asks afresh. */
const lifetime = 10_000;

const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const runPage = new RegExp(`^/runs/(${uuid})/?$`);

/**
 * firstReads lists the API reads, path and query as the API client writes
 * them, that the page at path needs for its first screen: the sign-in check
 * and how one may sign in (app/router.tsx's shell; the sign-in page only the
 * latter), and on a run's page the run, its result and its histogram
 * (features/runs/api/prefetch-run.ts).
 */
export function firstReads(path: string): string[] {
  if (path === '/sign-in') return ['/api/v1/auth/methods'];
  const reads = ['/api/v1/me', '/api/v1/auth/methods'];
  const run = runPage.exec(path)?.[1];
  if (run) reads.push(`/api/v1/runs/${run}`, `/api/v1/runs/${run}/result?format=barrage`, `/api/v1/runs/${run}/result?format=fortio`);
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

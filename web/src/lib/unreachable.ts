import { ApiError } from './api-client';

/**
 * isUnreachable reports whether a failed call got no answer from the API:
 * fetch rejects with a TypeError when the connection is refused or drops,
 * and a proxy in front of a stopped API answers 502 or 504 without a
 * problem of the API's own (api-client.ts's asProblem makes it about:blank).
 */
export function isUnreachable(err: unknown): boolean {
  if (err instanceof ApiError) return (err.status === 502 || err.status === 504) && err.problem.type === 'about:blank';
  return err instanceof TypeError;
}

/**
 * isPageLoadError reports whether a lazily loaded route's code could not be
 * fetched (the server gone, or a new build replaced the files): the browser's
 * dynamic import rejects, or Vite's preload of the route's CSS does.
 */
export function isPageLoadError(err: unknown): boolean {
  return err instanceof Error && /dynamically imported module|Importing a module script failed|Unable to preload CSS/.test(err.message);
}

import { useCallback, useEffect, useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { readParam, withParam } from '../utils/view-params';

/**
 * useViewParam keeps one toggle of a page in its URL's search parameter
 * name (utils/view-params.ts): it returns the value when the URL holds an
 * allowed one, else fallback, and a setter that writes it, leaving the
 * parameter out when it equals fallback. The URL is replaced, not pushed:
 * Back leaves the page rather than undoing each toggle.
 *
 * The router applies a navigation in a transition, after the click's
 * render, so a controlled radio would spring back until it lands; the value
 * chosen is held meanwhile, for as long as the URL still shows what it
 * showed at the click.
 *
 * Two toggles clicked before the router applied the first would each build
 * on the URL the page rendered with (the router's functional update reads
 * that too), and the second would drop the first: the search asked for and
 * not yet applied (pending) is what the next toggle builds on.
 */
let pending: { path: string; search: string; at: number } | undefined;

/** pendingFor is the search a toggle asked for on path within the last 2 s and not yet applied. */
function pendingFor(path: string): URLSearchParams | undefined {
  return pending && pending.path === path && Date.now() - pending.at < 2000 ? new URLSearchParams(pending.search) : undefined;
}

export function useViewParam<T extends string>(name: string, allowed: readonly T[], fallback: T): [T, (value: T) => void] {
  const [params, setParams] = useSearchParams();
  const { pathname } = useLocation();
  useEffect(() => {
    if (pending && pending.path === pathname && pending.search === params.toString()) pending = undefined;
  }, [pathname, params]);
  const inUrl = readParam(params, name, allowed);
  const [chosen, setChosen] = useState<{ value: T; over: T | undefined }>();
  const value = chosen && chosen.over === inUrl ? chosen.value : (inUrl ?? fallback);
  const set = useCallback(
    (v: T) => {
      setChosen({ value: v, over: inUrl });
      const next = withParam(pendingFor(pathname) ?? params, name, v === fallback ? undefined : v);
      pending = { path: pathname, search: next.toString(), at: Date.now() };
      setParams(next, { replace: true, preventScrollReset: true });
    },
    [setParams, name, fallback, inUrl, pathname, params],
  );
  return [value, set];
}

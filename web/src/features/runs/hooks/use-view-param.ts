import { useCallback, useState } from 'react';
import { useSearchParams } from 'react-router';
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
 */
export function useViewParam<T extends string>(name: string, allowed: readonly T[], fallback: T): [T, (value: T) => void] {
  const [params, setParams] = useSearchParams();
  const inUrl = readParam(params, name, allowed);
  const [chosen, setChosen] = useState<{ value: T; over: T | undefined }>();
  const value = chosen && chosen.over === inUrl ? chosen.value : (inUrl ?? fallback);
  const set = useCallback(
    (v: T) => {
      setChosen({ value: v, over: inUrl });
      setParams((p) => withParam(p, name, v === fallback ? undefined : v), { replace: true, preventScrollReset: true });
    },
    [setParams, name, fallback, inUrl],
  );
  return [value, set];
}

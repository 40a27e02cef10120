/**
 * The run page's view state kept in its URL, so a copied link opens the
 * same view: each toggle's search parameter. A value equal to the page's
 * default is left out, so an untouched page has a bare URL.
 */
export const viewParams = {
  /** The per-second latency chart's latency: response, service or lag. */
  latency: 'latency',
  /** The percentile spectrum's latency (the run page's and the compare page's). */
  spectrum: 'spectrum',
  /** The histogram's x axis: log or linear. */
  histogram: 'hist',
  /** The result-codes chart: `all` draws the successful codes too. */
  codes: 'codes',
  /** The rate and latency charts: `on` draws one line per agent (shard). */
  agents: 'agents',
} as const;

/** readParam is the parameter's value when it is one of allowed, else undefined (a hand-edited or stale link). */
export function readParam<T extends string>(params: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
  const raw = params.get(name);
  return raw !== null && (allowed as readonly string[]).includes(raw) ? (raw as T) : undefined;
}

/** withParam returns a copy of params with name set to value, or without it for undefined; the rest is kept. */
export function withParam(params: URLSearchParams, name: string, value: string | undefined): URLSearchParams {
  const next = new URLSearchParams(params);
  if (value === undefined) next.delete(name);
  else next.set(name, value);
  return next;
}

/**
 * ChartCode is the code a chart is drawn with (Recharts and the chart's
 * drawing), in a chunk of its own that a page loads apart from its first
 * screen: a page's module imports it as chartCode(() => import('./plots')),
 * and ChartArea loads it when the browser is next idle or when a chart is
 * first wanted on the screen, whichever comes first.
 */
export interface ChartCode<M> {
  /** load imports the code, once; after a failed import the next call tries again. */
  load: () => Promise<M>;
  /** current is the code once loaded, else undefined. */
  current: () => M | undefined;
  /** subscribe calls back once the code has loaded, until the returned function is called. */
  subscribe: (loaded: () => void) => () => void;
}

/** chartCode makes the ChartCode of a dynamic import. */
export function chartCode<M>(load: () => Promise<M>): ChartCode<M> {
  let loading: Promise<M> | undefined;
  let code: M | undefined;
  const waiting = new Set<() => void>();
  return {
    load: () =>
      (loading ??= load().then(
        (m) => {
          code = m;
          for (const cb of waiting) cb();
          waiting.clear();
          return m;
        },
        (e: unknown) => {
          loading = undefined;
          throw e;
        },
      )),
    current: () => code,
    subscribe: (loaded) => {
      waiting.add(loaded);
      return () => waiting.delete(loaded);
    },
  };
}

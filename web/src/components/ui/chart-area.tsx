import { useEffect, useLayoutEffect, useReducer, useRef, useState, useSyncExternalStore, type CSSProperties, type ReactNode, type RefObject } from 'react';
import type { ChartCode } from './chart-code';

/** reach is how far below (or above) the screen a chart is drawn ahead of a scroll, in px. */
const reach = 400;

/** onScreen reports whether el shows on the screen now. */
function onScreen(el: Element): boolean {
  const r = el.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight;
}

/**
 * useDrawn reports whether the element behind ref has been wanted on the
 * screen once; it then stays true. An element on the screen is known before
 * the first paint, so a chart there is drawn in the same frame as its card.
 * One further down is drawn when it comes on the screen, or, once the page
 * has been scrolled, when it comes within reach: a page's opening draws its
 * first screen alone, and a scroll draws what it is heading for a little
 * ahead. Everything is drawn before the page is printed. Without
 * IntersectionObserver (jsdom) everything is drawn.
 */
function useDrawn(ref: RefObject<HTMLElement | null>): boolean {
  const [drawn, setDrawn] = useState(() => typeof IntersectionObserver === 'undefined');
  useLayoutEffect(() => {
    const el = ref.current;
    if (drawn || !el) return;
    if (onScreen(el)) {
      setDrawn(true);
      return;
    }
    const draw = () => setDrawn(true);
    const seen = (entries: IntersectionObserverEntry[]) => {
      if (entries.some((e) => e.isIntersecting)) draw();
    };
    const now = new IntersectionObserver(seen);
    now.observe(el);
    let near: IntersectionObserver | undefined;
    const scrolled = () => {
      near = new IntersectionObserver(seen, { rootMargin: `${reach}px 0px` });
      near.observe(el);
    };
    window.addEventListener('scroll', scrolled, { once: true, passive: true });
    window.addEventListener('beforeprint', draw);
    return () => {
      now.disconnect();
      near?.disconnect();
      window.removeEventListener('scroll', scrolled);
      window.removeEventListener('beforeprint', draw);
    };
  }, [drawn, ref]);
  return drawn;
}

/** whenIdle calls fn when the browser is next idle (within 5 s), or in half a second where it cannot tell; the returned function cancels. */
function whenIdle(fn: () => void): () => void {
  if (typeof requestIdleCallback !== 'function') {
    const t = setTimeout(fn, 500);
    return () => clearTimeout(t);
  }
  const id = requestIdleCallback(fn, { timeout: 5000 });
  return () => cancelIdleCallback(id);
}

const never = () => () => {};
const none = () => undefined;

/**
 * useChartCode is code once it has loaded. Until then it loads code when the
 * browser is next idle, or at once when the chart is wanted: a scroll, or
 * printing, then finds the code there and draws in the same frame as
 * before, unless it comes before the page's first moment of idle (a print
 * then shows the box empty). An idle load that fails is tried again when
 * the chart is wanted; a failure then is the error, until retry.
 */
function useChartCode<M>(code: ChartCode<M> | undefined, wanted: boolean) {
  const loaded = useSyncExternalStore(code?.subscribe ?? never, code?.current ?? none);
  const [error, setError] = useState<string>();
  const [attempt, retry] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    if (!code || loaded !== undefined) return;
    if (!wanted) return whenIdle(() => void code.load().catch(() => {}));
    let live = true;
    code.load().catch((e: unknown) => {
      if (live) setError(e instanceof Error ? e.message : String(e));
    });
    return () => {
      live = false;
    };
  }, [code, loaded, wanted, attempt]);
  return {
    loaded,
    error,
    retry: () => {
      setError(undefined);
      retry();
    },
  };
}

interface Box {
  style?: CSSProperties;
  className?: string;
  testId?: string;
}

/**
 * The chart of a ChartArea: children, or, drawn with code that loads apart
 * from the page (chartCode), children called with that code once loaded.
 */
type Props<M> = Box & ({ code?: undefined; children: ReactNode } | { code: ChartCode<M>; children: (code: M) => ReactNode });

/**
 * ChartArea is the box a chart card draws its chart in (class chart, 260 px
 * high unless styled). The chart inside is built only once the box is
 * wanted on the screen (useDrawn), as a dashboard's panels are: a long page,
 * such as an hour-long run's result, opens at the cost of its first screen,
 * and each chart further down is drawn as a scroll brings it near. The card
 * around it (heading, toggles, legend, table view) is always there, so
 * keyboard and screen-reader users lose nothing. A chart drawn with code of
 * its own (Recharts: the run page's first screen draws none) is drawn once
 * that code has loaded too (useChartCode); the box keeps its height
 * meanwhile, so nothing below it moves. data-drawn is yes once the chart
 * is in the box.
 */
export function ChartArea<M>(props: Props<M>) {
  const { style, className, testId } = props;
  const ref = useRef<HTMLDivElement>(null);
  const drawn = useDrawn(ref);
  const code = useChartCode(props.code, drawn);
  let chart: ReactNode = null;
  if (drawn) chart = props.code === undefined ? props.children : code.loaded !== undefined ? props.children(code.loaded) : null;
  return (
    <div ref={ref} className={className ? `chart ${className}` : 'chart'} style={style} data-testid={testId} data-drawn={chart !== null ? 'yes' : 'later'}>
      {chart}
      {drawn && code.error && (
        <p className="field-error" role="alert">
          Could not load the chart: {code.error}{' '}
          <button type="button" onClick={code.retry}>
            Try again
          </button>
        </p>
      )}
    </div>
  );
}

import { useLayoutEffect, useRef, useState, type CSSProperties, type ReactNode, type RefObject } from 'react';

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

interface Props {
  children: ReactNode;
  style?: CSSProperties;
  className?: string;
  testId?: string;
}

/**
 * ChartArea is the box a chart card draws its chart in (class chart, 260 px
 * high unless styled). The chart inside is built only once the box is
 * wanted on the screen (useDrawn), as a dashboard's panels are: a long page,
 * such as an hour-long run's result, opens at the cost of its first screen,
 * and each chart further down is drawn as a scroll brings it near. The card
 * around it (heading, toggles, legend, table view) is always there, so
 * keyboard and screen-reader users lose nothing.
 */
export function ChartArea({ children, style, className, testId }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const drawn = useDrawn(ref);
  return (
    <div ref={ref} className={className ? `chart ${className}` : 'chart'} style={style} data-testid={testId} data-drawn={drawn ? 'yes' : 'later'}>
      {drawn ? children : null}
    </div>
  );
}

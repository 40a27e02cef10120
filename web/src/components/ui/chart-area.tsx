import { useLayoutEffect, useRef, useState, type CSSProperties, type ReactNode, type RefObject } from 'react';

/** reach is how far below (or above) the screen a chart is drawn ahead of a scroll, in px. */
const reach = 400;

/** onScreen reports whether el shows on the screen now. */
function onScreen(el: Element): boolean {
  const r = el.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight;
}

/**
 * useDrawn reports whether the element behind ref has come within reach of
 * the screen once; it then stays true. An element on the screen is known
 * before the first paint, so a chart there is drawn in the same frame as its
 * card. One within reach below is drawn by the observer's first report, in a
 * task after that frame. Without IntersectionObserver (jsdom) everything is
 * drawn.
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
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        setDrawn(true);
        io.disconnect();
      }
    }, { rootMargin: `${reach}px 0px` });
    io.observe(el);
    return () => io.disconnect();
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
 * high unless styled). The chart inside is built only once the box comes
 * within reach of the screen, as a dashboard's panels are: a long page, such
 * as an hour-long run's result, opens at the cost of its first screen, and
 * each chart further down is drawn as a scroll brings it near. The card
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

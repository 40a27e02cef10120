// What the browser benches evaluate in the page, shared between them.

/** perSecond selects the run page's per-second charts. */
export const perSecond = '[aria-label="Per-second charts"]';

/**
 * drawnLines counts the drawn lines of the per-second charts, or is false while fewer than atLeast are: the same
 * function counts and waits, since the page's CSP allows no eval of a string predicate.
 */
export function drawnLines(atLeast: number): number | false {
  const n = Array.from(document.querySelectorAll('[aria-label="Per-second charts"] path.recharts-curve.recharts-line-curve')).filter((p) => (p.getAttribute('d') ?? '').length > 0).length;
  return n >= atLeast ? n : false;
}

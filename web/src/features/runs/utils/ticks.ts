/** How the run names under the bar chart fit: how many characters, and whether slanted. */
export type TickLayout = { chars: number; angle: number; height: number };

/** Roughly the width of one character of a 12 px axis label. */
const charPx = 7;

/**
 * tickLayout fits one name per group into the plot's width: level when a
 * group leaves room for 10 characters, slanted (and cut at 16) otherwise.
 */
export function tickLayout(plotWidth: number, groups: number): TickLayout {
  const band = groups > 0 ? plotWidth / groups : plotWidth;
  const level = Math.floor((band - 8) / charPx);
  if (level >= 10) return { chars: Math.min(level, 28), angle: 0, height: 30 };
  return { chars: 16, angle: -35, height: 90 };
}

/** truncate cuts a label to n characters, marking the cut. */
export function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, Math.max(1, n - 1))}…` : s;
}

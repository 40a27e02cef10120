/** clock shows seconds since a run's start as m:ss or h:mm:ss, for time axes. */
export function clock(t: number): string {
  const s = Math.max(0, Math.round(t));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/**
 * timeDomain is a time axis' extent: the whole planned run while it is
 * live (so the chart fills from the left), and at least the seconds held.
 */
export function timeDomain(lastSecond: number | undefined, plannedSeconds: number | undefined): [number, number] {
  return [0, Math.max(1, lastSecond ?? 0, plannedSeconds ? Math.ceil(plannedSeconds) : 0)];
}

const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400, 21_600, 43_200, 86_400];

/** timeTicks picks round ticks (1 s, 5 s, 1 min, …) for a time axis, at most about `max` of them. */
export function timeTicks([lo, hi]: [number, number], max = 6): number[] {
  const span = Math.max(1, hi - lo);
  const step = steps.find((s) => span / s <= max) ?? Math.ceil(span / max / 86_400) * 86_400;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) out.push(t);
  return out;
}

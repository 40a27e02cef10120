import type { Schemas } from '@/lib/api-client';

export type Interval = Schemas['Interval'];

/**
 * mergeIntervals returns the seconds of `current` updated with `incoming`,
 * sorted by second, one entry per second. A second already held is replaced
 * unless the held one merged more shard snapshots: the snapshot count only
 * grows, so it tells the latest figures apart from a replayed older copy
 * whatever order the stream and the initial fetch answer in. `current` is
 * not changed; when nothing changes it is returned as is, so React skips
 * the render.
 */
export function mergeIntervals(current: readonly Interval[], incoming: readonly Interval[]): Interval[] {
  let out: Interval[] | undefined;
  for (const iv of incoming) {
    const list = out ?? current;
    const last = list[list.length - 1];
    // The common live case: a new second after every held one.
    if (last === undefined || iv.second > last.second) {
      out ??= current.slice();
      out.push(iv);
      continue;
    }
    const i = lowerBound(list, iv.second);
    const held = list[i];
    if (held !== undefined && held.second === iv.second) {
      if (held.snapshots > iv.snapshots || held === iv) continue;
      out ??= current.slice();
      out[i] = iv;
    } else {
      out ??= current.slice();
      out.splice(i, 0, iv);
    }
  }
  return out ?? (current as Interval[]);
}

/** lowerBound is the index of the first interval whose second is >= second. */
function lowerBound(list: readonly Interval[], second: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.second < second) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

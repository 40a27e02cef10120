import type { Schemas } from '@/lib/api-client';
import { mergeSorted } from './sorted-merge';

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
  return mergeSorted(current, incoming, bySecond, (held, iv) => held.snapshots > iv.snapshots || held === iv);
}

const bySecond = (a: Interval, b: Interval) => a.second - b.second;

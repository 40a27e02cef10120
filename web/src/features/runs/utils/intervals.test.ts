import type { Interval } from './intervals';
import { mergeIntervals } from './intervals';

function iv(second: number, count: number, snapshots = 1): Interval {
  const lat = { p50_us: 1000, p90_us: 2000, p99_us: 3000, max_us: 4000 };
  return {
    second,
    count,
    errors: 0,
    qps: count,
    response: lat,
    service: lat,
    lag: lat,
    ret_codes: { '200': count },
    bytes_sent: 0,
    bytes_received: 0,
    snapshots,
    generator_limited: false,
  };
}

const seconds = (l: Interval[]) => l.map((i) => i.second);
const counts = (l: Interval[]) => l.map((i) => i.count);

describe('mergeIntervals', () => {
  it('appends new seconds in order', () => {
    const out = mergeIntervals([iv(0, 10), iv(1, 11)], [iv(2, 12), iv(3, 13)]);
    expect(seconds(out)).toEqual([0, 1, 2, 3]);
    expect(counts(out)).toEqual([10, 11, 12, 13]);
  });

  it('keeps the latest figures of a second sent again', () => {
    // Shard 1's snapshot arrives, then shard 2 adds to the same second.
    const out = mergeIntervals([iv(0, 100, 2), iv(1, 100, 1)], [iv(1, 200, 2)]);
    expect(seconds(out)).toEqual([0, 1]);
    expect(counts(out)).toEqual([100, 200]);
  });

  it('ignores a replayed copy older than the one held', () => {
    // After a reconnect the server replays five seconds; the initial fetch may also answer late.
    const held = [iv(0, 100, 2), iv(1, 200, 2), iv(2, 200, 2)];
    const out = mergeIntervals(held, [iv(1, 100, 1), iv(2, 200, 2)]);
    expect(counts(out)).toEqual([100, 200, 200]);
  });

  it('takes the incoming copy on a tie of snapshots', () => {
    const out = mergeIntervals([iv(0, 100, 2)], [iv(0, 101, 2)]);
    expect(counts(out)).toEqual([101]);
  });

  it('inserts an earlier second in place', () => {
    const out = mergeIntervals([iv(0, 1), iv(3, 4)], [iv(2, 3), iv(1, 2)]);
    expect(seconds(out)).toEqual([0, 1, 2, 3]);
    expect(counts(out)).toEqual([1, 2, 3, 4]);
  });

  it('sorts an unordered batch into an empty list', () => {
    const out = mergeIntervals([], [iv(5, 5), iv(2, 2), iv(9, 9), iv(2, 3, 2)]);
    expect(seconds(out)).toEqual([2, 5, 9]);
    expect(counts(out)).toEqual([3, 5, 9]);
  });

  it('does not change its input and returns it when nothing changed', () => {
    const held = [iv(0, 100, 2), iv(1, 200, 2)];
    const copy = structuredClone(held);
    expect(mergeIntervals(held, [iv(1, 50, 1)])).toBe(held);
    const out = mergeIntervals(held, [iv(2, 1)]);
    expect(out).not.toBe(held);
    expect(held).toEqual(copy);
  });
});

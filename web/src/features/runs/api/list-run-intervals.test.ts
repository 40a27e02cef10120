import { api } from '@/lib/api-client';
import type { Interval } from '../utils/intervals';
import { listAllRunIntervals } from './list-run-intervals';

function iv(second: number): Interval {
  const lat = { p50_us: 1, p90_us: 1, p99_us: 1, max_us: 1 };
  return { second, count: 1, errors: 0, qps: 1, response: lat, service: lat, lag: lat, ret_codes: {}, bytes_sent: 0, bytes_received: 0, snapshots: 1, generator_limited: false };
}

describe('listAllRunIntervals', () => {
  afterEach(() => vi.restoreAllMocks());

  it('pages with limit 3600 (an hour) until there is no next_from', async () => {
    const froms: unknown[] = [];
    vi.spyOn(api, 'GET').mockImplementation((async (_path: string, init: { params: { query: { from: number; limit: number } } }) => {
      const { from, limit } = init.params.query;
      froms.push([from, limit]);
      const items = Array.from({ length: Math.min(limit, 8000 - from) }, (_, i) => iv(from + i));
      const next = from + items.length < 8000 ? { next_from: from + items.length } : {};
      return { data: { items, ...next }, response: new Response(null, { status: 200 }) };
    }) as never);
    const all = await listAllRunIntervals('r');
    expect(froms).toEqual([
      [0, 3600],
      [3600, 3600],
      [7200, 3600],
    ]);
    expect(all).toHaveLength(8000);
    expect(all[7999]!.second).toBe(7999);
  });

  it('stops after maxPages pages, and where next_from does not move on', async () => {
    const froms: number[] = [];
    vi.spyOn(api, 'GET').mockImplementation((async (_path: string, init: { params: { query: { from: number; limit: number } } }) => {
      const { from } = init.params.query;
      froms.push(from);
      // Every page says there is more; from 3000 on, next_from stays put.
      const items = [iv(from)];
      return { data: { items, next_from: from >= 3000 ? from : from + 1000 }, response: new Response(null, { status: 200 }) };
    }) as never);
    const capped = await listAllRunIntervals('r', { maxPages: 2 });
    expect(froms).toEqual([0, 1000]);
    expect(capped.map((i) => i.second)).toEqual([0, 1000]);
    froms.length = 0;
    const all = await listAllRunIntervals('r');
    expect(froms).toEqual([0, 1000, 2000, 3000]);
    expect(all).toHaveLength(4);
  });
});

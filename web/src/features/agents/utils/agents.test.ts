import type { Schemas } from '@/lib/api-client';
import { isLive, otherLabels, poolOf, summarize, usableBy } from './agents';

const now = Date.parse('2026-01-01T00:00:10Z');
const agent = (over: Partial<Schemas['Agent']>): Schemas['Agent'] => ({
  id: 'a', name: 'a', labels: {}, version: 'v1', capacity: 4, running_shards: 0, rss_bytes: 0, cpu_percent: 0,
  first_seen_at: '2026-01-01T00:00:00Z', last_seen_at: '2026-01-01T00:00:08Z', ...over,
});

describe('isLive', () => {
  it('is a heartbeat within the last 6 s', () => {
    expect(isLive(agent({ last_seen_at: '2026-01-01T00:00:04.001Z' }), now)).toBe(true);
    expect(isLive(agent({ last_seen_at: '2026-01-01T00:00:04Z' }), now)).toBe(false);
  });
});

describe('pools', () => {
  const blue = agent({ labels: { pool: 'blue', zone: 'eu' } });
  it('reads the pool label apart from the others', () => {
    expect(poolOf(blue)).toBe('blue');
    expect(otherLabels(blue)).toEqual({ zone: 'eu' });
    expect(poolOf(agent({}))).toBeUndefined();
  });
  it('lets a project without pools use every agent, one with pools only theirs', () => {
    expect(usableBy(agent({}), [])).toBe(true);
    expect(usableBy(blue, ['blue', 'red'])).toBe(true);
    expect(usableBy(blue, ['red'])).toBe(false);
    expect(usableBy(agent({}), ['red'])).toBe(false);
  });
});

describe('summarize', () => {
  it('counts live agents, their busy and free slots, and those the project may use', () => {
    const items = [
      agent({ id: '1', capacity: 4, running_shards: 1, labels: { pool: 'blue' } }),
      agent({ id: '2', capacity: 2, running_shards: 2 }),
      agent({ id: '3', capacity: 8, running_shards: 3, last_seen_at: '2026-01-01T00:00:01Z' }),
    ];
    expect(summarize(items, now, [])).toEqual({ total: 3, live: 2, busy: 3, slots: 6, usable: 2 });
    expect(summarize(items, now, ['blue'])).toEqual({ total: 3, live: 2, busy: 3, slots: 6, usable: 1 });
    expect(summarize([], now, [])).toEqual({ total: 0, live: 0, busy: 0, slots: 0, usable: 0 });
  });
});

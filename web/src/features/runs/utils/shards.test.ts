import { shardRate, shardTone, shardTotals, statusBreakdown, type RunShard } from './shards';

function shard(over: Partial<RunShard>): RunShard {
  return {
    shard: 0,
    agent_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    agent_name: 'a-0',
    status: 'running',
    qps: 100,
    connections: 2,
    count: 0,
    errors: 0,
    snapshots: 0,
    final_received: false,
    updated_at: '2026-11-23T10:04:05Z',
    ...over,
  };
}

describe('shardTone', () => {
  it('shows lost as bad, done as ok, running as info and assigned as muted', () => {
    expect(['assigned', 'running', 'done', 'lost'].map((s) => shardTone(s as RunShard['status']))).toEqual(['muted', 'info', 'ok', 'bad']);
  });
});

describe('shardTotals', () => {
  it('adds the plan and the counts, and counts shards by status', () => {
    const t = shardTotals([
      shard({ shard: 0, status: 'done', qps: 100, connections: 2, count: 500, errors: 3, snapshots: 7 }),
      shard({ shard: 1, status: 'lost', qps: 100, connections: 2, count: 180, errors: 0, snapshots: 3 }),
      shard({ shard: 2, status: 'done', qps: 100, connections: 1, count: 499, errors: 1, snapshots: 7 }),
    ]);
    expect(t).toEqual({
      qps: 300,
      connections: 5,
      count: 1179,
      errors: 4,
      snapshots: 17,
      byStatus: { assigned: 0, running: 0, done: 2, lost: 1 },
    });
  });

  it('is all zeros for no shard', () => {
    expect(shardTotals([])).toEqual({ qps: 0, connections: 0, count: 0, errors: 0, snapshots: 0, byStatus: { assigned: 0, running: 0, done: 0, lost: 0 } });
  });
});

describe('statusBreakdown', () => {
  it('names the statuses present, in the order shards move through them', () => {
    const t = shardTotals([shard({ status: 'lost' }), shard({ status: 'done' }), shard({ status: 'assigned' }), shard({ status: 'done' })]);
    expect(statusBreakdown(t)).toBe('1 assigned, 2 done, 1 lost');
  });

  it('is empty for no shard', () => {
    expect(statusBreakdown(shardTotals([]))).toBe('');
  });
});

describe('shardRate', () => {
  it('formats a target share, and 0 as max', () => {
    expect(shardRate(66.6667)).toBe('66.7');
    expect(shardRate(1500)).toBe('1,500');
    expect(shardRate(0)).toBe('max');
  });
});

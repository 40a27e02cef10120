import { describe, expect, it } from 'vitest';
import { agentLabel, agentLines, agentRows, latestByAgent, mergeShardIntervals, type ShardInterval } from './agent-series';

function row(second: number, shard: number, count: number, extra: Partial<ShardInterval> = {}): ShardInterval {
  return {
    second, shard, agent_name: `agent-${shard + 1}`, count, errors: 0, qps: count, service_p50_us: 900, service_p99_us: 1500,
    response_p99_us: 1600 + shard, lag_p99_us: 40, cpu_used: 0.5, cpu_cores: 2, ...extra,
  };
}

describe('agent series', () => {
  it('labels a line by agent name and shard', () => {
    expect(agentLabel(row(0, 1, 1))).toBe('agent-2/1');
    expect(agentLabel({ agent_name: '', shard: 3 })).toBe('agent/3');
  });

  it('merges by second and shard, keeping the larger count', () => {
    const a = mergeShardIntervals([], [row(1, 1, 5), row(0, 0, 10), row(0, 1, 7)]);
    expect(a.map((r) => [r.second, r.shard, r.count])).toEqual([[0, 0, 10], [0, 1, 7], [1, 1, 5]]);
    const b = mergeShardIntervals(a, [row(0, 1, 3), row(1, 1, 9)]); // a replayed older copy, then a later figure
    expect(b.map((r) => r.count)).toEqual([10, 7, 9]);
    expect(mergeShardIntervals(b, [row(0, 0, 2)])).toBe(b);
  });

  it('shapes one row per second with a series per shard', () => {
    const rows = [row(0, 0, 10), row(0, 1, 7), row(1, 1, 5)];
    expect(agentLines(rows).map((l) => [l.key, l.label])).toEqual([['s0', 'agent-1/0'], ['s1', 'agent-2/1']]);
    expect(agentRows(rows, 'qps')).toEqual([{ t: 0, s0: 10, s1: 7 }, { t: 1, s1: 5 }]);
    expect(agentRows(rows, 'response')).toEqual([{ t: 0, s0: 1600, s1: 1601 }, { t: 1, s1: 1601 }]);
    expect(agentRows(rows, 'lag')[0]).toEqual({ t: 0, s0: 40, s1: 40 });
  });

  it("takes each agent's latest second", () => {
    const latest = latestByAgent([row(0, 0, 10), row(0, 1, 7), row(1, 1, 5), row(2, 0, 4)]);
    expect(latest.map((r) => [r.shard, r.second, r.count])).toEqual([[0, 2, 4], [1, 1, 5]]);
  });
});

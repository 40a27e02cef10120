import type { Schemas } from '@/lib/api-client';
import type { Row } from './downsample';
import type { LatencyKind } from './series';
import { mergeSorted } from './sorted-merge';

export type ShardInterval = Schemas['ShardInterval'];

/** One agent's line: its shard, its label ("name/shard") and its row key. */
export interface AgentLine {
  shard: number;
  label: string;
  key: string;
}

/** agentLabel names a shard's line: its agent's name and the shard, "agent-2/1". */
export function agentLabel(r: Pick<ShardInterval, 'agent_name' | 'shard'>): string {
  return `${r.agent_name || 'agent'}/${r.shard}`;
}

/**
 * mergeShardIntervals returns the rows of current updated with incoming,
 * one per (second, shard), sorted by second then shard. A held row is
 * replaced unless it counted more: a shard's second only grows (a late
 * snapshot adds to it), so the larger count is the later figure whatever
 * order the stream and the fetch answer in. current is returned as is
 * when nothing changes.
 */
export function mergeShardIntervals(current: readonly ShardInterval[], incoming: readonly ShardInterval[]): ShardInterval[] {
  return mergeSorted(current, incoming, bySecondShard, (held, r) => held.count > r.count);
}

const bySecondShard = (a: ShardInterval, b: ShardInterval) => a.second - b.second || a.shard - b.shard;

/** agentLines lists the shards seen in rows, by shard. */
export function agentLines(rows: readonly ShardInterval[]): AgentLine[] {
  const seen = new Map<number, AgentLine>();
  for (const r of rows) if (!seen.has(r.shard)) seen.set(r.shard, { shard: r.shard, label: agentLabel(r), key: `s${r.shard}` });
  return [...seen.values()].sort((a, b) => a.shard - b.shard);
}

/** The per-shard figure a latency kind's per-agent line draws: its p99. */
const p99Of: Record<LatencyKind, (r: ShardInterval) => number> = {
  response: (r) => r.response_p99_us,
  service: (r) => r.service_p99_us,
  lag: (r) => r.lag_p99_us,
};

/**
 * agentRows shapes the per-shard rows as one chart row per second with one
 * series per shard (key s<shard>): its qps, or its p99 of a latency kind. A
 * shard missing from a second is absent from that row.
 */
export function agentRows(rows: readonly ShardInterval[], figure: 'qps' | LatencyKind): Row[] {
  const value = figure === 'qps' ? (r: ShardInterval) => r.qps : p99Of[figure];
  const out: Row[] = [];
  for (const r of rows) {
    let last = out[out.length - 1];
    if (!last || last.t !== r.second) {
      last = { t: r.second };
      out.push(last);
    }
    last[`s${r.shard}`] = value(r);
  }
  return out;
}

/** latestByAgent is each shard's row of the last second it reported, by shard. */
export function latestByAgent(rows: readonly ShardInterval[]): ShardInterval[] {
  const latest = new Map<number, ShardInterval>();
  for (const r of rows) {
    const held = latest.get(r.shard);
    if (!held || r.second >= held.second) latest.set(r.shard, r);
  }
  return [...latest.values()].sort((a, b) => a.shard - b.shard);
}

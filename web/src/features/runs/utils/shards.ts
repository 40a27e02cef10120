import type { Schemas } from '@/lib/api-client';
import { formatRate } from '@/lib/format';
import type { Tone } from '@/lib/run-status';

export type RunShard = Schemas['RunShard'];
export type ShardStatus = Schemas['ShardStatus'];

/** Every shard status, in the order a shard moves through them. */
export const shardStatuses: readonly ShardStatus[] = ['assigned', 'running', 'done', 'lost'];

const tones: Record<ShardStatus, Tone> = { assigned: 'muted', running: 'info', done: 'ok', lost: 'bad' };

/** shardTone is the badge class of a shard status. */
export function shardTone(s: ShardStatus): Tone {
  return tones[s];
}

const meanings: Record<ShardStatus, string> = {
  assigned: 'Sent to its agent; no snapshot yet',
  running: 'Interval snapshots arriving',
  done: 'Its final snapshot arrived',
  lost: 'Its agent went away or sent no final in time: the figures lack the rest of its part',
};

/** shardMeaning says what a shard status means, for a tooltip. */
export function shardMeaning(s: ShardStatus): string {
  return meanings[s];
}

/** ShardTotals adds up a run's shards. */
export interface ShardTotals {
  qps: number;
  connections: number;
  count: number;
  errors: number;
  snapshots: number;
  byStatus: Record<ShardStatus, number>;
}

/** shardTotals adds up the plan (qps, connections) and the counts of shards, and counts them by status. */
export function shardTotals(shards: readonly RunShard[]): ShardTotals {
  const t: ShardTotals = { qps: 0, connections: 0, count: 0, errors: 0, snapshots: 0, byStatus: { assigned: 0, running: 0, done: 0, lost: 0 } };
  for (const s of shards) {
    t.qps += s.qps;
    t.connections += s.connections;
    t.count += s.count;
    t.errors += s.errors;
    t.snapshots += s.snapshots;
    t.byStatus[s.status]++;
  }
  return t;
}

/** statusBreakdown names how many shards are in each status, in shard order: "2 done, 1 lost". */
export function statusBreakdown(t: ShardTotals): string {
  return shardStatuses
    .filter((s) => t.byStatus[s] > 0)
    .map((s) => `${t.byStatus[s]} ${s}`)
    .join(', ');
}

/** shardRate shows a shard's part of the target rate; 0 means as fast as it can. */
export function shardRate(qps: number): string {
  return qps > 0 ? formatRate(qps) : 'max';
}

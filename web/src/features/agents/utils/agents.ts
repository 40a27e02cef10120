import type { Schemas } from '@/lib/api-client';

type Agent = Schemas['Agent'];

/** liveForMs: an agent that has not heartbeated for this long has left the live set (the heartbeats' 6 s TTL). */
export const liveForMs = 6_000;

/** poolLabel is the label the API sets from the pool an agent's credentials bind. */
export const poolLabel = 'pool';

/** isLive reports whether an agent heartbeated within liveForMs of now. */
export function isLive(a: Agent, now: number): boolean {
  return now - Date.parse(a.last_seen_at) < liveForMs;
}

/** poolOf is the agent's pool, bound in its credentials; undefined without one. */
export function poolOf(a: Agent): string | undefined {
  return a.labels[poolLabel];
}

/** otherLabels are the agent's labels but its pool. */
export function otherLabels(a: Agent): Record<string, string> {
  return Object.fromEntries(Object.entries(a.labels).filter(([k]) => k !== poolLabel));
}

/** usableBy reports whether a project restricted to pools (none: every agent) may use the agent. */
export function usableBy(a: Agent, pools: readonly string[]): boolean {
  if (pools.length === 0) return true;
  const pool = poolOf(a);
  return pool !== undefined && pools.includes(pool);
}

/** AgentsSummary counts the live agents and their shard slots. */
export interface AgentsSummary {
  total: number;
  live: number;
  /** Shards running on live agents, and the slots they have. */
  busy: number;
  slots: number;
  /** Live agents the project may use. */
  usable: number;
}

/** summarize counts agents at now for a project restricted to pools. */
export function summarize(items: readonly Agent[], now: number, pools: readonly string[]): AgentsSummary {
  const live = items.filter((a) => isLive(a, now));
  return {
    total: items.length,
    live: live.length,
    busy: live.reduce((n, a) => n + a.running_shards, 0),
    slots: live.reduce((n, a) => n + a.capacity, 0),
    usable: live.filter((a) => usableBy(a, pools)).length,
  };
}

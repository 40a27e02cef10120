import type { Schemas } from './api-client';

export type Role = Schemas['Role'];

const rank: Record<Role, number> = { viewer: 1, runner: 2, admin: 3 };

/**
 * can reports whether a role in a project includes need: admin includes
 * runner, runner includes viewer. No role (not a member) includes nothing.
 * The API decides; this only hides what it would refuse.
 */
export function can(role: Role | undefined, need: Role): boolean {
  return role !== undefined && rank[role] >= rank[need];
}

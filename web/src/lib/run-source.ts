import type { Schemas } from './api-client';

export type RunSource = Schemas['Run']['source'];

/** isImportedSource tells runs read from a Fortio result document (uploaded or synced) from runs Barrage ran. */
export function isImportedSource(s: RunSource): boolean {
  return s === 'import' || s === 'sync';
}

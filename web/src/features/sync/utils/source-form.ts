import type { Schemas } from '@/lib/api-client';
import type { NewSyncSource } from '../api/create-sync-source';

export interface SourceFormState {
  name: string;
  url: string;
  interval: string;
}

export type SourceField = keyof SourceFormState;
export type SourceFieldErrors = Partial<Record<SourceField, string>>;

export const emptySourceForm: SourceFormState = { name: '', url: '', interval: '60' };

/**
 * sourceBody checks the form and builds the POST /sync-sources body, or
 * returns the errors to show next to the fields. The API checks the URL
 * itself (scheme, reachable addresses); this only catches the obvious.
 */
export function sourceBody(f: SourceFormState, project: string): { body: NewSyncSource } | { errors: SourceFieldErrors } {
  const errors: SourceFieldErrors = {};
  const name = f.name.trim();
  const url = f.url.trim();
  if (!name) errors.name = 'is required';
  if (!url) errors.url = 'is required';
  else if (!/^https?:\/\//i.test(url)) errors.url = 'must be an http or https URL';
  const interval = f.interval.trim() === '' ? 0 : Number(f.interval);
  if (!Number.isInteger(interval) || interval < 0) errors.interval = 'must be a whole number of minutes, 0 or more';
  if (Object.keys(errors).length > 0) return { errors };
  return { body: { project: project || undefined, name, url, interval_minutes: interval } };
}

const apiFields: Record<string, SourceField> = { name: 'name', url: 'url', interval_minutes: 'interval' };

/** mapSourceProblem spreads a 422 problem's field errors over the form; the rest go to a summary. */
export function mapSourceProblem(errors: readonly Schemas['FieldError'][]): { fields: SourceFieldErrors; other: Schemas['FieldError'][] } {
  const fields: SourceFieldErrors = {};
  const other: Schemas['FieldError'][] = [];
  for (const e of errors) {
    const f = apiFields[e.field];
    if (f) fields[f] = fields[f] ? `${fields[f]}; ${e.message}` : e.message;
    else other.push(e);
  }
  return { fields, other };
}

/** intervalText says how often a source syncs. */
export function intervalText(minutes: number): string {
  if (minutes <= 0) return 'on demand';
  if (minutes % 1440 === 0) return `every ${minutes / 1440} d`;
  if (minutes % 60 === 0) return `every ${minutes / 60} h`;
  return `every ${minutes} min`;
}

type SyncStatus = Schemas['SyncRun']['status'];

/** syncTone is the badge class of a sync's status. */
export function syncTone(s: SyncStatus): 'ok' | 'warn' | 'bad' | 'info' {
  return s === 'succeeded' ? 'ok' : s === 'partial' ? 'warn' : s === 'failed' ? 'bad' : 'info';
}

type Outcome = Schemas['SyncObject']['outcome'];

/** outcomeTone is the badge class of an object's outcome. */
export function outcomeTone(o: Outcome): 'ok' | 'muted' | 'warn' | 'bad' {
  return o === 'imported' ? 'ok' : o === 'unchanged' ? 'muted' : o === 'skipped' ? 'warn' : 'bad';
}

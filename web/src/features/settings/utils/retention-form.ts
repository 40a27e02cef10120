import type { Schemas } from '@/lib/api-client';
import { fieldErrorsOf } from './field-errors';

/** RetentionName is one retention setting, as the API names it. */
export type RetentionName = keyof Schemas['ProjectRetention'];

/** retentionNames lists them in the order the form shows them. */
export const retentionNames: readonly RetentionName[] = ['interval_retention_days', 'run_retention_days'];

/** maxRetentionDays is the longest retention the API takes (a hundred years). */
export const maxRetentionDays = 36500;

/** RetentionDraft is the form's text for each setting; blank keeps that data forever. */
export type RetentionDraft = Record<RetentionName, string>;

/** RetentionErrors holds a message per setting at fault. */
export type RetentionErrors = Partial<Record<RetentionName, string>>;

/** retentionDraftOf shows the stored days, and blanks for what is kept forever. */
export function retentionDraftOf(r: Schemas['ProjectRetention']): RetentionDraft {
  return {
    interval_retention_days: r.interval_retention_days === undefined ? '' : String(r.interval_retention_days),
    run_retention_days: r.run_retention_days === undefined ? '' : String(r.run_retention_days),
  };
}

const wholeNumber = /^\d+$/;

/**
 * toRetentionUpdate reads a draft into the PATCH body's `retention`, which
 * replaces both settings: a blank one is left out (kept forever), any other
 * must be a whole number of days from 1 to maxRetentionDays.
 */
export function toRetentionUpdate(
  d: RetentionDraft,
): { ok: true; body: Schemas['ProjectRetention'] } | { ok: false; errors: RetentionErrors } {
  const body: Schemas['ProjectRetention'] = {};
  const errors: RetentionErrors = {};
  for (const name of retentionNames) {
    const v = d[name].trim();
    if (v === '') continue;
    const n = Number(v);
    if (wholeNumber.test(v) && n >= 1 && n <= maxRetentionDays) body[name] = n;
    else errors[name] = `must be a whole number of days from 1 to ${maxRetentionDays}, or blank to keep forever`;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, body };
}

/** retentionErrorsOf places the API's `retention.<name>` field errors; the others are returned as text. */
export function retentionErrorsOf(errs: Schemas['FieldError'][] | undefined): { fields: RetentionErrors; other: string[] } {
  return fieldErrorsOf(errs, 'retention.', retentionNames);
}

/** retentionText says how long a setting keeps its data: "30 days", "1 day" or "forever". */
export function retentionText(days: number | undefined): string {
  if (days === undefined) return 'forever';
  return days === 1 ? '1 day' : `${days} days`;
}

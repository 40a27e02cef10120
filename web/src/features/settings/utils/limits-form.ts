import type { Schemas } from '@/lib/api-client';
import { fieldErrorsOf } from './field-errors';

/** LimitName is one limit a project may set, as the API names it. */
export type LimitName = keyof Schemas['LimitValues'];

/** limitNames lists the limits in the order the form shows them. */
export const limitNames: readonly LimitName[] = ['max_qps', 'max_connections', 'max_duration', 'max_agents', 'max_concurrent_runs'];

/** LimitsDraft is the form's text for each limit; blank is the deployment's limit. */
export type LimitsDraft = Record<LimitName, string>;

/** LimitErrors holds a message per limit at fault. */
export type LimitErrors = Partial<Record<LimitName, string>>;

/** draftOf shows the limits the project sets itself, and blanks for the others. */
export function draftOf(l: Schemas['ProjectLimits']): LimitsDraft {
  const own = new Set<LimitName>(l.overridden);
  const text = (n: LimitName) => (own.has(n) ? String(l[n]) : '');
  return {
    max_qps: text('max_qps'),
    max_connections: text('max_connections'),
    max_duration: text('max_duration'),
    max_agents: text('max_agents'),
    max_concurrent_runs: text('max_concurrent_runs'),
  };
}

// A Go duration ("30m", "1h30m", "90s").
const goDuration = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;
const seconds = /^\d+(\.\d+)?$/;
const wholeNumber = /^\d+$/;

/**
 * toLimitsUpdate reads a draft into the PATCH body: a blank limit is left
 * out (the deployment's), counts must be whole numbers, max_qps a number
 * and max_duration a duration such as "30m" or a number of seconds. The
 * API checks the ranges (above 0, at most the deployment's).
 */
export function toLimitsUpdate(d: LimitsDraft): { ok: true; body: Schemas['ProjectLimitsUpdate'] } | { ok: false; errors: LimitErrors } {
  const body: Schemas['ProjectLimitsUpdate'] = {};
  const errors: LimitErrors = {};
  for (const name of limitNames) {
    const v = d[name].trim();
    if (v === '') continue;
    if (name === 'max_duration') {
      if (seconds.test(v)) body.max_duration = Number(v);
      else if (goDuration.test(v)) body.max_duration = v;
      else errors.max_duration = 'must be a duration such as 30m or 1h, or a number of seconds';
    } else if (name === 'max_qps') {
      const n = Number(v);
      if (Number.isFinite(n)) body.max_qps = n;
      else errors.max_qps = 'must be a number';
    } else if (wholeNumber.test(v)) {
      body[name] = Number(v);
    } else {
      errors[name] = 'must be a whole number';
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, body };
}

/** limitsErrorsOf places the API's `limits.<name>` field errors; the others are returned as text. */
export function limitsErrorsOf(errs: Schemas['FieldError'][] | undefined): { fields: LimitErrors; other: string[] } {
  return fieldErrorsOf(errs, 'limits.', limitNames);
}

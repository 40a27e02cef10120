import type { Schemas } from '@/lib/api-client';

/**
 * fieldErrorsOf places the API's field errors `<prefix><name>` on the
 * form's fields of those names (the first message of each); the others
 * are returned as "field: message" text for the form's general error.
 */
export function fieldErrorsOf<N extends string>(
  errs: Schemas['FieldError'][] | undefined,
  prefix: string,
  names: readonly N[],
): { fields: Partial<Record<N, string>>; other: string[] } {
  const fields: Partial<Record<N, string>> = {};
  const other: string[] = [];
  for (const { field, message } of errs ?? []) {
    const name = field.startsWith(prefix) ? (field.slice(prefix.length) as N) : undefined;
    if (name !== undefined && names.includes(name)) fields[name] ??= message;
    else other.push(`${field}: ${message}`);
  }
  return { fields, other };
}

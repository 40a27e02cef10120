import type { Schemas } from '@/lib/api-client';

/** The form's text fields, as typed. */
export type TestFormValues = {
  name: string;
  description: string;
  labels: string;
  thresholds: string;
  spec: string;
  /** A 5-field cron expression or @descriptor; empty for no schedule. */
  schedule: string;
  /** IANA time zone of the schedule. */
  timezone: string;
  /** How many of the test's last passing runs its runs pool as their baseline, 1 to 20; empty for the newest one. */
  baselineLast: string;
};

/** The most passing runs a test's runs may pool as their baseline, as the API allows. */
export const maxBaselineLast = 20;

/** The zone a schedule runs in when none is given, as the API defaults. */
export const defaultTimezone = 'UTC';

/** Zones offered in the time zone field; any IANA name may be typed. */
export const commonTimezones = [
  'UTC',
  'Europe/London',
  'Europe/Paris',
  'Europe/Berlin',
  'Europe/Madrid',
  'Europe/Amsterdam',
  'Europe/Stockholm',
  'Europe/Warsaw',
  'Europe/Moscow',
  'Africa/Johannesburg',
  'Asia/Dubai',
  'Asia/Kolkata',
  'Asia/Singapore',
  'Asia/Shanghai',
  'Asia/Tokyo',
  'Asia/Seoul',
  'Australia/Sydney',
  'Pacific/Auckland',
  'America/Sao_Paulo',
  'America/New_York',
  'America/Chicago',
  'America/Denver',
  'America/Los_Angeles',
  'America/Toronto',
  'America/Mexico_City',
] as const;

/** Messages per form field; `other` holds what belongs to no field. */
export type FormErrors = Partial<Record<keyof TestFormValues | 'other', string>>;

/** A new test starts from a small spec to edit rather than a blank box. */
export const newTestValues: TestFormValues = {
  name: '',
  description: '',
  labels: '',
  thresholds: '',
  spec: JSON.stringify({ url: 'http://127.0.0.1:8081/', qps: 100, duration: '30s', connections: 8 }, null, 2),
  schedule: '',
  timezone: defaultTimezone,
  baselineLast: '',
};

/** formValuesOf fills the form from a stored test. */
export function formValuesOf(t: Schemas['Test']): TestFormValues {
  return {
    name: t.name,
    description: t.description,
    labels: Object.entries(t.labels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    thresholds: (t.thresholds ?? []).join('\n'),
    spec: JSON.stringify(t.spec, null, 2),
    // PUT replaces the whole test: the stored schedule goes back unless edited.
    schedule: t.schedule ?? '',
    timezone: t.timezone || defaultTimezone,
    baselineLast: t.baseline_last ? String(t.baseline_last) : '',
  };
}

/** parseLabels reads `key=value` lines; blank lines are skipped, the value may contain `=`. */
export function parseLabels(text: string): { labels: Record<string, string>; error?: string } {
  const labels: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    const eq = line.indexOf('=');
    const key = eq < 0 ? '' : line.slice(0, eq).trim();
    if (!key) return { labels, error: `line ${i + 1}: "${line}" is not key=value` };
    if (key in labels) return { labels, error: `line ${i + 1}: label "${key}" is given twice` };
    labels[key] = line.slice(eq + 1).trim();
  }
  return { labels };
}

/** parseThresholds reads one threshold per non-blank line. */
export function parseThresholds(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** parseSpec checks the spec box is a JSON object before it is sent; the API checks its fields. */
export function parseSpec(text: string): { spec?: Schemas['RunSpec']; error?: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: `not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { error: 'the spec must be a JSON object, such as {"url": "…"}' };
  return { spec: v as Schemas['RunSpec'] };
}

/**
 * toTestBody turns the form into the body of PUT /tests/{test} (POST adds the project), or says what is wrong.
 * The schedule and zone are always sent, an empty schedule meaning none: PUT replaces the whole test.
 * Cron syntax and zone names are the API's to check (a 422 on `schedule` or `timezone`).
 */
export function toTestBody(v: TestFormValues): { body: Schemas['TestReplace'] } | { errors: FormErrors } {
  const errors: FormErrors = {};
  const name = v.name.trim();
  if (!name) errors.name = 'give the test a name';
  const labels = parseLabels(v.labels);
  if (labels.error) errors.labels = labels.error;
  const spec = parseSpec(v.spec);
  if (spec.error) errors.spec = spec.error;
  const last = v.baselineLast.trim();
  const baselineLast = last === '' ? undefined : Number(last);
  if (baselineLast !== undefined && !(Number.isInteger(baselineLast) && baselineLast >= 1 && baselineLast <= maxBaselineLast)) {
    errors.baselineLast = `give a whole number of runs from 1 to ${maxBaselineLast}, or leave it empty for the newest passing run`;
  }
  if (Object.keys(errors).length > 0 || !spec.spec) return { errors };
  return {
    body: {
      name,
      description: v.description.trim(),
      labels: labels.labels,
      thresholds: parseThresholds(v.thresholds),
      spec: spec.spec,
      schedule: v.schedule.trim(),
      timezone: v.timezone.trim() || defaultTimezone,
      // PUT replaces the whole test: leaving it out clears it.
      ...(baselineLast !== undefined && { baseline_last: baselineLast }),
    },
  };
}

/**
 * formErrorsOf places the API's field errors next to the form's fields:
 * `spec.qps` under the spec box as "qps: …", `thresholds[1]` as "line 2: …",
 * `labels.team` as "team: …".
 */
export function formErrorsOf(errs: Schemas['FieldError'][] | undefined): FormErrors {
  const out: Record<string, string[]> = {};
  const add = (k: keyof FormErrors, msg: string) => (out[k] ??= []).push(msg);
  for (const { field, message } of errs ?? []) {
    if (field === 'baseline_last') {
      add('baselineLast', message);
      continue;
    }
    const m = /^(name|description|labels|thresholds|spec|schedule|timezone)(?:\[(\d+)\]|\.(.+))?$/.exec(field);
    if (!m) {
      add('other', `${field}: ${message}`);
      continue;
    }
    const [, top, index, rest] = m;
    if (index !== undefined) add(top as keyof FormErrors, `line ${Number(index) + 1}: ${message}`);
    else if (rest !== undefined) add(top as keyof FormErrors, `${rest}: ${message}`);
    else add(top as keyof FormErrors, message);
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.join('; ')]));
}

import type { Schemas } from '@/lib/api-client';

/** AuthKind is how the endpoint is authenticated. */
export type AuthKind = Schemas['RemoteWrite']['auth'];

/** HeaderDraft is one header row; stored says the API holds a value for its name. */
export interface HeaderDraft {
  name: string;
  value: string;
  stored: boolean;
}

/**
 * RemoteWriteDraft is the form's state. The secrets (header values, the
 * password, the token) are never read back: each save sends them again.
 */
export interface RemoteWriteDraft {
  url: string;
  enabled: boolean;
  headers: HeaderDraft[];
  auth: AuthKind;
  username: string;
  password: string;
  token: string;
}

/** HeaderErrors are the messages of one header row, on its name or its value. */
export interface HeaderErrors {
  name?: string;
  value?: string;
}

/** RemoteWriteErrors holds a message per field at fault; headers by row. */
export interface RemoteWriteErrors {
  url?: string;
  headers?: string;
  header?: Record<number, HeaderErrors>;
  username?: string;
  password?: string;
  token?: string;
}

/** remoteWriteDraftOf starts the form from the stored endpoint (null: none), secrets blank. */
export function remoteWriteDraftOf(rw: Schemas['RemoteWrite'] | null): RemoteWriteDraft {
  return {
    url: rw?.url ?? '',
    enabled: rw?.enabled ?? true,
    headers: (rw?.header_names ?? []).map((name) => ({ name, value: '', stored: true })),
    auth: rw?.auth ?? 'none',
    username: rw?.username ?? '',
    password: '',
    token: '',
  };
}

const headerName = /^[A-Za-z0-9!#$%&'*+.^_|~-]{1,128}$/;
const reserved = new Set([
  'authorization', 'content-type', 'content-encoding', 'content-length', 'host', 'user-agent',
  'x-prometheus-remote-write-version', 'retry-attempt',
]);
/** maxHeaders is the most headers an endpoint may have. */
export const maxHeaders = 20;
const again = 'the API never shows it: enter it again to save';

/**
 * toRemoteWritePut reads a draft into the PUT body, which replaces the
 * whole configuration. stored is the endpoint as the API holds it: a
 * secret it holds (the token, a header's value) must be typed again, or
 * the save would drop it. Blank header rows are left out.
 */
export function toRemoteWritePut(
  d: RemoteWriteDraft,
  stored: Schemas['RemoteWrite'] | null,
): { ok: true; body: Schemas['RemoteWritePut'] } | { ok: false; errors: RemoteWriteErrors } {
  const errors: RemoteWriteErrors = {};
  const url = d.url.trim();
  errors.url = urlProblem(url);

  const headers: Record<string, string> = {};
  const header: Record<number, HeaderErrors> = {};
  const seen = new Set<string>();
  d.headers.forEach((h, i) => {
    const name = h.name.trim();
    if (name === '' && h.value === '') return;
    const lower = name.toLowerCase();
    if (!headerName.test(name)) header[i] = { name: 'is not an HTTP header name' };
    else if (reserved.has(lower)) header[i] = { name: 'is set by Barrage: give credentials under Authentication' };
    else if (seen.has(lower)) header[i] = { name: 'is listed twice' };
    else if (h.value === '') header[i] = { value: h.stored ? `a value is set; ${again}` : 'is required' };
    else if (/[\r\n\0]/.test(h.value)) header[i] = { value: 'must be one line' };
    seen.add(lower);
    headers[name] = h.value;
  });
  if (Object.keys(header).length > 0) errors.header = header;
  if (seen.size > maxHeaders) errors.headers = `at most ${maxHeaders} headers`;

  const body: Schemas['RemoteWritePut'] = { url, enabled: d.enabled };
  if (seen.size > 0) body.headers = headers;
  if (d.auth === 'bearer') {
    if (d.token === '') errors.token = stored?.auth === 'bearer' ? `a token is set; ${again}` : 'is required for bearer auth';
    else body.bearer_token = d.token;
  } else if (d.auth === 'basic') {
    const username = d.username.trim();
    if (username === '' || username.includes(':')) errors.username = 'is required for basic auth, without a colon';
    body.basic_auth = d.password === '' ? { username } : { username, password: d.password };
  }
  const failed = Object.entries(errors).filter(([, v]) => v !== undefined);
  return failed.length > 0 ? { ok: false, errors: Object.fromEntries(failed) as RemoteWriteErrors } : { ok: true, body };
}

function urlProblem(url: string): string | undefined {
  if (url === '') return 'is required';
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'is not a URL: give e.g. https://prometheus.example/api/v1/write';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http or https URL';
  if (u.username !== '' || u.password !== '') return 'must not hold credentials: give them under Authentication';
  return undefined;
}

/**
 * remoteWriteErrorsOf places the API's field errors: url, headers and
 * headers.<name> (on the row of that name), basic_auth.username,
 * basic_auth.password and bearer_token; the others are returned as text.
 */
export function remoteWriteErrorsOf(
  errs: Schemas['FieldError'][] | undefined,
  rows: HeaderDraft[],
): { fields: RemoteWriteErrors; other: string[] } {
  const fields: RemoteWriteErrors = {};
  const other: string[] = [];
  for (const { field, message } of errs ?? []) {
    if (field === 'url') fields.url ??= message;
    else if (field === 'headers') fields.headers ??= message;
    else if (field === 'basic_auth.username') fields.username ??= message;
    else if (field === 'basic_auth.password') fields.password ??= message;
    else if (field === 'bearer_token') fields.token ??= message;
    else if (field.startsWith('headers.') && rows.some((r) => r.name.trim() === field.slice('headers.'.length))) {
      const i = rows.findIndex((r) => r.name.trim() === field.slice('headers.'.length));
      fields.header = { ...fields.header, [i]: fields.header?.[i] ?? { name: message } };
    } else other.push(`${field}: ${message}`);
  }
  return { fields, other };
}

/** authText says how the stored endpoint authenticates, never with its secret. */
export function authText(rw: Schemas['RemoteWrite']): string {
  switch (rw.auth) {
    case 'bearer':
      return 'Bearer token set';
    case 'basic':
      return `Basic auth as ${rw.username} (password not shown)`;
    default:
      return 'None';
  }
}

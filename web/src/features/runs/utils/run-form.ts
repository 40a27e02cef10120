// The New run form's state and its mapping to the API's request bodies:
// pure functions, so the rules (what is omitted, how text is parsed, what is
// refused before sending) are unit-tested apart from the markup.
import type { Schemas } from '@/lib/api-client';

type RunSpec = Schemas['RunSpec'];
type RunCreate = Schemas['RunCreate'];
type TestCreate = Schemas['TestCreate'];
type Test = Schemas['Test'];

/** How the run's length is bounded: Fortio's -t, -n, or -t 0. */
export type LengthMode = 'duration' | 'count' | 'until_stopped';

/**
 * RunFormState holds the form's inputs as typed. Keys are the JSON paths of
 * the spec fields they fill (`qps`, `ramp.over`, `agents.count`), which are
 * also the inputs' name attributes and where server field errors land.
 */
export interface RunFormState {
  url: string;
  name: string;
  /** One URL per line (blank lines and # comments skipped): the run goes round them. */
  urls: string;
  url_order: '' | 'round_robin' | 'random';
  urls_from_run: string;
  record_written_urls: boolean;
  qps: string;
  connections: string;
  length: LengthMode;
  duration: string;
  count: string;
  pacing: '' | 'open' | 'closed' | 'fortio';
  jitter: boolean;
  uniform: boolean;
  no_catchup: boolean;
  burst: string;
  abort_if_rate_not_held: boolean;
  'ramp.from': string;
  'ramp.to': string;
  'ramp.over': string;
  method: string;
  headers: string;
  payload: string;
  content_type: string;
  timeout: string;
  h2: boolean;
  h3: boolean;
  insecure: boolean;
  abort_on: string;
  http10: boolean;
  compression: boolean;
  follow_redirects: boolean;
  prefetch: boolean;
  unix_socket: string;
  max_requests_per_connection: string;
  'grpc.mode': '' | 'health' | 'ping' | 'method';
  'grpc.service': string;
  'grpc.ping_delay': string;
  'grpc.method': string;
  'grpc.streams': string;
  'agents.count': string;
  'agents.selector': string;
  percentiles: string;
  labels: string;
  thresholds: string;
  /** A JSON object of the spec fields the form has no input for (requests, stages, …). */
  more: string;
  save_as_test: boolean;
  test_name: string;
}

export type FormField = keyof RunFormState;
export type FieldErrors = Partial<Record<FormField, string>>;

/** Fortio's defaults: 8 qps, 8 connections, 5 s, the usual percentiles. */
export const defaultFormState: RunFormState = {
  url: '',
  name: '',
  urls: '',
  url_order: '',
  urls_from_run: '',
  record_written_urls: false,
  qps: '8',
  connections: '8',
  length: 'duration',
  duration: '5s',
  count: '',
  pacing: '',
  jitter: false,
  uniform: false,
  no_catchup: false,
  burst: '',
  abort_if_rate_not_held: false,
  'ramp.from': '',
  'ramp.to': '',
  'ramp.over': '',
  method: '',
  headers: '',
  payload: '',
  content_type: '',
  timeout: '',
  h2: false,
  h3: false,
  insecure: false,
  abort_on: '',
  http10: false,
  compression: false,
  follow_redirects: false,
  prefetch: false,
  unix_socket: '',
  max_requests_per_connection: '',
  'grpc.mode': '',
  'grpc.service': '',
  'grpc.ping_delay': '',
  'grpc.method': '',
  'grpc.streams': '',
  'agents.count': '',
  'agents.selector': '',
  percentiles: '50, 75, 90, 99, 99.9',
  labels: '',
  thresholds: '',
  more: '',
  save_as_test: false,
  test_name: '',
};

/** The form's fields that are not spec paths. */
const nonSpecFields: ReadonlySet<string> = new Set<FormField>(['name', 'length', 'thresholds', 'more', 'save_as_test', 'test_name']);

/** The form's fields that fill the spec path of the same name (`qps`, `ramp.over`, `agents.count`). */
export const specPathFields: ReadonlySet<string> = new Set(Object.keys(defaultFormState).filter((k) => !nonSpecFields.has(k)));

/**
 * The spec's top-level fields that have inputs of their own (`until_stopped`
 * through the length choice). Every other field of a spec (requests, stages,
 * payload_file, latency_header, …) is edited as JSON in `more`, so a test read
 * into the form loses nothing.
 */
export const formSpecFields: ReadonlySet<string> = new Set([...[...specPathFields].map((p) => p.split('.')[0]!), 'until_stopped']);

export type Protocol = 'http' | 'https' | 'h2c' | 'grpc' | 'grpcs' | 'tcp' | 'udp';

/** What each scheme means, for the hint under the URL. */
export const protocolText: Record<Protocol, string> = {
  http: 'HTTP/1.1',
  https: 'HTTPS (HTTP/1.1, or HTTP/2 with h2)',
  h2c: 'HTTP/2 cleartext',
  grpc: 'gRPC',
  grpcs: 'gRPC over TLS',
  tcp: 'TCP',
  udp: 'UDP',
};

/**
 * protocolOf reads the scheme of a target URL: a known protocol, 'unknown'
 * for another scheme, or undefined while there is no scheme yet.
 */
export function protocolOf(url: string): Protocol | 'unknown' | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url.trim());
  if (!m) return undefined;
  const s = m[1]!.toLowerCase();
  return s in protocolText ? (s as Protocol) : 'unknown';
}

export function isGrpc(url: string): boolean {
  const p = protocolOf(url);
  return p === 'grpc' || p === 'grpcs';
}

/** The result of mapping the form: the requests to send, or the local errors. */
export type BuiltRequest =
  | { ok: true; run: RunCreate & { spec: RunSpec }; test?: TestCreate }
  | { ok: false; errors: FieldErrors };

const numberPattern = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const integerPattern = /^[+-]?\d+$/;
// Go's time.ParseDuration syntax: one or more number+unit pairs.
const goDurationPattern = /^[+-]?((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;

/**
 * toRunRequest maps the form to the POST /runs body (and the POST /tests
 * body when "save as test" is on). Empty inputs are left out so the API's
 * defaults apply; text that cannot be what the field needs ("abc" for qps, a
 * header without a colon) is refused here with a message per field. Range
 * checks are the API's: its messages come back next to the same fields.
 */
export function toRunRequest(s: RunFormState, project: string): BuiltRequest {
  const errors: FieldErrors = {};
  const fail = (f: FormField, msg: string) => {
    errors[f] ??= msg;
  };
  const num = (f: FormField, raw: string): number | undefined => {
    const t = raw.trim();
    if (t === '') return undefined;
    if (!numberPattern.test(t)) return fail(f, 'must be a number'), undefined;
    return Number(t);
  };
  const int = (f: FormField, raw: string): number | undefined => {
    const t = raw.trim();
    if (t === '') return undefined;
    if (!integerPattern.test(t)) return fail(f, 'must be a whole number'), undefined;
    return Number(t);
  };
  const dur = (f: FormField, raw: string): string | number | undefined => {
    const t = raw.trim();
    if (t === '') return undefined;
    // A bare number is seconds, which the API takes as a JSON number.
    if (numberPattern.test(t)) return Number(t);
    if (!goDurationPattern.test(t)) return fail(f, 'must be a duration like 30s, 1m30s, 250ms, or a number of seconds'), undefined;
    return t;
  };
  const text = (raw: string) => raw.trim() || undefined;

  const spec: RunSpec = { url: s.url.trim() };
  if (!spec.url) fail('url', 'is required');
  const urls = s.urls
    .split('\n')
    .map((u) => u.trim())
    .filter((u) => u !== '' && !u.startsWith('#'));
  if (urls.length > 0) spec.urls = urls;
  if (s.url_order) spec.url_order = s.url_order;
  spec.urls_from_run = text(s.urls_from_run);
  if (s.record_written_urls) spec.record_written_urls = true;

  spec.qps = num('qps', s.qps);
  spec.connections = int('connections', s.connections);
  if (s.length === 'duration') {
    spec.duration = dur('duration', s.duration);
  } else if (s.length === 'count') {
    spec.count = int('count', s.count);
    if (s.count.trim() === '') fail('count', 'is required when the run is bounded by a count');
  } else {
    spec.until_stopped = true;
  }

  if (s.pacing) spec.pacing = s.pacing;
  if (s.jitter) spec.jitter = true;
  if (s.uniform) spec.uniform = true;
  if (s.no_catchup) spec.no_catchup = true;
  spec.burst = int('burst', s.burst);
  if (s.abort_if_rate_not_held) spec.abort_if_rate_not_held = true;
  const rampFrom = num('ramp.from', s['ramp.from']);
  const rampTo = num('ramp.to', s['ramp.to']);
  const rampOver = dur('ramp.over', s['ramp.over']);
  if ([s['ramp.from'], s['ramp.to'], s['ramp.over']].some((v) => v.trim() !== '')) {
    if (s['ramp.to'].trim() === '') fail('ramp.to', 'is required for a ramp');
    if (s['ramp.over'].trim() === '') fail('ramp.over', 'is required for a ramp');
    if (rampTo !== undefined && rampOver !== undefined) spec.ramp = { from: rampFrom, to: rampTo, over: rampOver };
  }

  spec.method = text(s.method);
  const headers = parseLines(s.headers, 'headers', ':', 'Name: value', fail);
  if (headers.length > 0) spec.headers = headers.map(([k, v]) => `${k}: ${v}`);
  if (s.payload !== '') spec.payload = s.payload;
  spec.content_type = text(s.content_type);
  spec.timeout = dur('timeout', s.timeout);
  if (s.h2) spec.h2 = true;
  if (s.h3) spec.h3 = true;
  if (s.insecure) spec.insecure = true;
  spec.abort_on = int('abort_on', s.abort_on);
  if (s.http10) spec.http10 = true;
  if (s.compression) spec.compression = true;
  if (s.follow_redirects) spec.follow_redirects = true;
  if (s.prefetch) spec.prefetch = true;
  spec.unix_socket = text(s.unix_socket);
  spec.max_requests_per_connection = int('max_requests_per_connection', s.max_requests_per_connection);

  if (isGrpc(spec.url)) {
    const mode = s['grpc.mode'];
    const grpc: NonNullable<RunSpec['grpc']> = {};
    if (mode) grpc.mode = mode;
    // Service is for health checks, the delay for pings, the method for
    // method mode: send only the one the mode uses.
    if (mode === 'ping') grpc.ping_delay = dur('grpc.ping_delay', s['grpc.ping_delay']);
    else if (mode === 'method') grpc.method = text(s['grpc.method']);
    else grpc.service = text(s['grpc.service']);
    grpc.streams = int('grpc.streams', s['grpc.streams']);
    const g = dropUndefined(grpc);
    if (Object.keys(g).length > 0) spec.grpc = g;
  }

  const percentiles: number[] = [];
  for (const p of s.percentiles.split(/[\s,]+/).filter(Boolean)) {
    if (!numberPattern.test(p)) fail('percentiles', `“${p}” is not a number`);
    else percentiles.push(Number(p));
  }
  if (percentiles.length > 0) spec.percentiles = percentiles;

  const agentCount = int('agents.count', s['agents.count']);
  const selector = parseLines(s['agents.selector'], 'agents.selector', '=', 'key=value', fail);
  if (agentCount !== undefined || selector.length > 0) {
    spec.agents = dropUndefined({ count: agentCount, selector: selector.length > 0 ? toMap(selector, 'agents.selector', fail) : undefined });
  }

  const labels = toMap(parseLines(s.labels, 'labels', '=', 'key=value', fail), 'labels', fail);
  const thresholds = s.thresholds.split('\n').map((t) => t.trim()).filter(Boolean);
  const name = text(s.name);
  if (s.save_as_test && !s.test_name.trim()) fail('test_name', 'is required to save the test');

  const more = parseMore(s.more, fail);

  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const cleanSpec = { ...more, ...dropUndefined(spec) } as RunSpec;
  const run = dropUndefined({
    project: project || undefined,
    spec: cleanSpec,
    name,
    thresholds: thresholds.length > 0 ? thresholds : undefined,
    labels: Object.keys(labels).length > 0 ? labels : undefined,
    source: 'ui' as const,
  }) as RunCreate & { spec: RunSpec };
  if (!s.save_as_test) return { ok: true, run };
  const test = dropUndefined({
    project: project || undefined,
    name: s.test_name.trim(),
    spec: cleanSpec,
    thresholds: run.thresholds,
    labels: run.labels,
  }) as TestCreate;
  return { ok: true, run, test };
}

/**
 * runOfTest is the POST /runs body that runs a stored test: its spec, labels
 * and thresholds come from the test, so only the run's name is kept.
 */
export function runOfTest(run: RunCreate, testId: string): RunCreate {
  return dropUndefined({ project: run.project, test: testId, name: run.name, source: 'ui' as const }) as RunCreate;
}

/**
 * asStoredTestRun decides whether a form prefilled from a test still runs
 * that test: when its spec is unchanged and every label of the test is kept,
 * the run is started from the test (so it is listed under it) with the
 * form's name, labels (added to the test's) and thresholds; otherwise the
 * edited spec is sent inline.
 */
export function asStoredTestRun(built: RunCreate & { spec: RunSpec }, test: Test): RunCreate | undefined {
  const fromTest = toRunRequest(formFromTest(test), built.project ?? '');
  if (!fromTest.ok || !sameJSON(built.spec, fromTest.run.spec)) return undefined;
  const labels = built.labels ?? {};
  if (Object.entries(test.labels ?? {}).some(([k, v]) => labels[k] !== v)) return undefined;
  return dropUndefined({
    project: built.project,
    test: test.id,
    name: built.name,
    labels: built.labels,
    thresholds: built.thresholds,
    source: 'ui' as const,
  }) as RunCreate;
}

/** formFromTest fills the form from a stored test, for "New run from this test". */
export function formFromTest(test: Pick<Test, 'spec' | 'labels' | 'thresholds'>): RunFormState {
  const sp = test.spec;
  const str = (v: number | string | undefined) => (v === undefined ? '' : String(v));
  const length: LengthMode = sp.until_stopped ? 'until_stopped' : sp.count ? 'count' : 'duration';
  const more = Object.fromEntries(Object.entries(sp).filter(([k, v]) => !formSpecFields.has(k) && v !== undefined));
  return {
    ...defaultFormState,
    url: sp.url,
    urls: (sp.urls ?? []).join('\n'),
    url_order: sp.url_order ?? '',
    urls_from_run: sp.urls_from_run ?? '',
    record_written_urls: !!sp.record_written_urls,
    qps: str(sp.qps ?? 0),
    connections: str(sp.connections),
    length,
    duration: length === 'duration' ? str(sp.duration) : defaultFormState.duration,
    count: length === 'count' ? str(sp.count) : '',
    pacing: sp.pacing ?? '',
    jitter: !!sp.jitter,
    uniform: !!sp.uniform,
    no_catchup: !!sp.no_catchup,
    burst: sp.burst ? String(sp.burst) : '',
    abort_if_rate_not_held: !!sp.abort_if_rate_not_held,
    'ramp.from': sp.ramp ? str(sp.ramp.from) : '',
    'ramp.to': sp.ramp ? str(sp.ramp.to) : '',
    'ramp.over': sp.ramp ? str(sp.ramp.over) : '',
    method: sp.method ?? '',
    headers: (sp.headers ?? []).join('\n'),
    payload: sp.payload ?? '',
    content_type: sp.content_type ?? '',
    timeout: str(sp.timeout),
    h2: !!sp.h2,
    h3: !!sp.h3,
    insecure: !!sp.insecure,
    abort_on: sp.abort_on ? String(sp.abort_on) : '',
    http10: !!sp.http10,
    compression: !!sp.compression,
    follow_redirects: !!sp.follow_redirects,
    prefetch: !!sp.prefetch,
    unix_socket: sp.unix_socket ?? '',
    max_requests_per_connection: sp.max_requests_per_connection ? String(sp.max_requests_per_connection) : '',
    'grpc.mode': sp.grpc?.mode ?? '',
    'grpc.service': sp.grpc?.service ?? '',
    'grpc.ping_delay': str(sp.grpc?.ping_delay),
    'grpc.method': sp.grpc?.method ?? '',
    'grpc.streams': sp.grpc?.streams ? String(sp.grpc.streams) : '',
    'agents.count': sp.agents?.count ? String(sp.agents.count) : '',
    'agents.selector': pairs(sp.agents?.selector),
    percentiles: sp.percentiles && sp.percentiles.length > 0 ? sp.percentiles.join(', ') : defaultFormState.percentiles,
    // The spec's own labels and the test's both end up on the run.
    labels: pairs({ ...(sp.labels ?? {}), ...(test.labels ?? {}) }),
    thresholds: (test.thresholds ?? []).join('\n'),
    more: Object.keys(more).length > 0 ? JSON.stringify(more, null, 2) : '',
  };
}

/**
 * parseMore reads the "more spec fields" input: empty, or a JSON object none
 * of whose keys has an input of its own (that input is the one place to set it).
 */
function parseMore(raw: string, fail: (f: FormField, msg: string) => void): Record<string, unknown> {
  if (raw.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (err) {
    fail('more', `is not JSON: ${err instanceof Error ? err.message : String(err)}`);
    return {};
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    fail('more', 'must be a JSON object of spec fields, like {"stages": [{"qps": 10, "duration": "30s"}]}');
    return {};
  }
  const taken = Object.keys(v).filter((k) => formSpecFields.has(k));
  if (taken.length > 0) {
    fail('more', `${taken.map((k) => `“${k}”`).join(', ')} ${taken.length === 1 ? 'has its own input' : 'have their own inputs'} above`);
    return {};
  }
  return v as Record<string, unknown>;
}

/**
 * parseLines reads "key<sep>value" lines, skipping blank ones; a line
 * without the separator or with an empty key is reported by its line number.
 */
function parseLines(
  raw: string,
  field: FormField,
  sep: string,
  shape: string,
  fail: (f: FormField, msg: string) => void,
): [string, string][] {
  const out: [string, string][] = [];
  raw.split('\n').forEach((line, i) => {
    const t = line.trim();
    if (!t) return;
    const at = t.indexOf(sep);
    if (at <= 0) {
      fail(field, `line ${i + 1}: write it as “${shape}”`);
      return;
    }
    out.push([t.slice(0, at).trim(), t.slice(at + 1).trim()]);
  });
  return out;
}

function toMap(entries: [string, string][], field: FormField, fail: (f: FormField, msg: string) => void): Record<string, string> {
  const m: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (k in m) fail(field, `“${k}” is given twice`);
    m[k] = v;
  }
  return m;
}

function pairs(m: Record<string, string> | undefined): string {
  return Object.entries(m ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** sameJSON compares two plain values as JSON, ignoring key order. */
function sameJSON(a: unknown, b: unknown): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

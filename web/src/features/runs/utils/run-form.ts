// The New run form's mapping to the API's request bodies: pure functions, so
// the rules (what is omitted, how text is parsed, what is refused before
// sending) are unit-tested apart from the markup. The fields themselves, with
// their defaults and codecs, are the table in run-form-fields.ts; this file
// adds the rules that tie several of them together.
import type { Schemas } from '@/lib/api-client';
import { pairs, readText, type Fail } from './run-form-codecs';
import { defaultFormState, fieldRow, formSpecFields, runFormFields, type FieldErrors, type FormField, type LengthMode, type RunFormState } from './run-form-fields';

export {
  defaultFormState,
  formSpecFields,
  specPathFields,
  type FieldErrors,
  type FormField,
  type LengthMode,
  type RunFormState,
} from './run-form-fields';

type RunSpec = Schemas['RunSpec'];
type RunCreate = Schemas['RunCreate'];
type TestCreate = Schemas['TestCreate'];
type Test = Schemas['Test'];

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

/**
 * toRunRequest maps the form to the POST /runs body (and the POST /tests
 * body when "save as test" is on). Each spec field's text is read by its
 * codec from the field table; empty inputs are left out so the API's
 * defaults apply; text that cannot be what the field needs is refused here
 * with a message per field. Range checks are the API's: its messages come
 * back next to the same fields.
 */
export function toRunRequest(s: RunFormState, project: string): BuiltRequest {
  const errors: FieldErrors = {};
  const fail = (f: FormField, msg: string) => {
    errors[f] ??= msg;
  };
  /** read maps one field's text through its codec; a field is read only where its rule uses it. */
  const read = (f: FormField): unknown => {
    const codec = fieldRow[f].codec as { to(raw: unknown, fail: Fail): unknown } | undefined;
    return codec?.to(s[f], (msg) => fail(f, msg));
  };

  const spec = {} as RunSpec;
  const set = spec as Record<string, unknown>;
  for (const r of runFormFields) if (r.placement === 'spec') set[r.name] = read(r.name);
  if (!spec.url) fail('url', 'is required');

  // length: the length choice says which of duration and count is read.
  if (s.length === 'duration') {
    set.duration = read('duration');
  } else if (s.length === 'count') {
    set.count = read('count');
    if (s.count.trim() === '') fail('count', 'is required when the run is bounded by a count');
  } else {
    spec.until_stopped = true;
  }

  // ramp: any of its inputs makes a ramp, which needs its end rate and length.
  const rampFrom = read('ramp.from') as number | undefined;
  const rampTo = read('ramp.to') as number | undefined;
  const rampOver = read('ramp.over') as string | number | undefined;
  if ([s['ramp.from'], s['ramp.to'], s['ramp.over']].some((v) => v.trim() !== '')) {
    if (s['ramp.to'].trim() === '') fail('ramp.to', 'is required for a ramp');
    if (s['ramp.over'].trim() === '') fail('ramp.over', 'is required for a ramp');
    if (rampTo !== undefined && rampOver !== undefined) spec.ramp = { from: rampFrom, to: rampTo, over: rampOver };
  }

  if (isGrpc(s.url)) {
    const mode = s['grpc.mode'];
    const grpc: Record<string, unknown> = { mode: read('grpc.mode') };
    // Service is for health checks, the delay for pings, the method for
    // method mode: send only the one the mode uses.
    if (mode === 'ping') grpc.ping_delay = read('grpc.ping_delay');
    else if (mode === 'method') grpc.method = read('grpc.method');
    else grpc.service = read('grpc.service');
    grpc.streams = read('grpc.streams');
    const g = dropUndefined(grpc);
    if (Object.keys(g).length > 0) spec.grpc = g as RunSpec['grpc'];
  }

  // tls: the TLS inputs that are set make the block; ALPN only where the
  // protocol lets it be chosen (gRPC and HTTP/3 fix theirs).
  const tls: Record<string, unknown> = {};
  for (const r of tlsRows) if (shownFor(r, s)) tls[r.name.slice('tls.'.length)] = read(r.name);
  const t = dropUndefined(tls);
  if (Object.keys(t).length > 0) spec.tls = t as RunSpec['tls'];

  // agents: a count or a selector makes the block.
  const agentCount = read('agents.count');
  const selector = read('agents.selector');
  if (agentCount !== undefined || selector !== undefined) spec.agents = dropUndefined({ count: agentCount, selector }) as RunSpec['agents'];

  // run: the labels and thresholds go on the run (and test) around the spec.
  const labels = read('labels') as Record<string, string> | undefined;
  const thresholds = s.thresholds.split('\n').map((t) => t.trim()).filter(Boolean);
  const name = readText(s.name);
  if (s.save_as_test && !s.test_name.trim()) fail('test_name', 'is required to save the test');

  const more = parseMore(s.more, fail);

  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const cleanSpec = { ...more, ...dropUndefined(spec) } as RunSpec;
  const run = dropUndefined({
    project: project || undefined,
    spec: cleanSpec,
    name,
    thresholds: thresholds.length > 0 ? thresholds : undefined,
    labels,
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

/** The value the API shows in place of a stored secret (spec.RedactedValue in pkg/spec/redact.go). */
export const redactedValue = 'REDACTED';

/** The rows of the spec's tls block. */
const tlsRows = runFormFields.filter((r) => r.placement === 'tls');

const shownFor = (r: (typeof runFormFields)[number], s: RunFormState) =>
  !('shownWhen' in r) || r.shownWhen === undefined || r.shownWhen(s as unknown as Readonly<Record<string, string | boolean>>);

/**
 * storedSecretErrors names the TLS inputs of a spec that still hold a stored
 * test's sealed value (shown as REDACTED, never the key itself). Only the
 * stored test can send those to the agents, so a spec that is not run as
 * that test (edited, or saved as a new test) must have them pasted again.
 */
export function storedSecretErrors(spec: RunSpec): FieldErrors {
  const errors: FieldErrors = {};
  const t = spec.tls ?? {};
  for (const k of ['client_cert', 'client_key'] as const) {
    if (t[k] === redactedValue) errors[`tls.${k}`] = 'is sealed with the test, so it only runs the unedited test: paste it again to run this spec';
  }
  return errors;
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

/** formFromTest fills the form from a stored test, for "New run from this test": each spec field through its codec. */
export function formFromTest(test: Pick<Test, 'spec' | 'labels' | 'thresholds'>): RunFormState {
  const sp = test.spec;
  const state: Record<string, unknown> = { ...defaultFormState };
  for (const r of runFormFields) if (r.codec) state[r.name] = r.codec.from(at(sp, r.name));
  const length: LengthMode = sp.until_stopped ? 'until_stopped' : sp.count ? 'count' : 'duration';
  state.length = length;
  if (length !== 'duration') state.duration = defaultFormState.duration;
  if (length !== 'count') state.count = '';
  // The spec's own labels and the test's both end up on the run.
  state.labels = pairs({ ...(sp.labels ?? {}), ...(test.labels ?? {}) });
  state.thresholds = (test.thresholds ?? []).join('\n');
  const more = Object.fromEntries(Object.entries(sp).filter(([k, v]) => !formSpecFields.has(k) && v !== undefined));
  state.more = Object.keys(more).length > 0 ? JSON.stringify(more, null, 2) : '';
  return state as RunFormState;
}

/** at reads a dotted path (`ramp.over`) of a spec. */
function at(v: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), v);
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

// The New run form's one field table. Each row is an input: its name (the
// JSON path of the spec field it fills, which is also the input's name
// attribute and where the API's field errors land), the section it sits in,
// its input kind, its default, its label and hints, and its codec: how its
// text is checked and mapped into the request body and read back from a
// stored test. The form's state type, defaults, sections, spec-path sets and
// the plain part of the request body are all derived from this table;
// run-form.ts adds the rules that tie several rows together (length, ramp,
// gRPC, agents, run labels).
import { codecs, numberList, type Codec } from './run-form-codecs';

/** How the run's length is bounded: Fortio's -t, -n, or -t 0. */
export type LengthMode = 'duration' | 'count' | 'until_stopped';

/**
 * The form's sections: the fieldsets, and inside them the collapsed
 * <details> (collapsed: true), which open when one of their fields has an
 * error, or from the start when a prefilled field in opensWhenSet has a
 * value.
 */
export const runFormSections = {
  target: { title: 'Target', collapsed: false, opensWhenSet: [] },
  urls: { title: 'URL list and written URLs', collapsed: true, opensWhenSet: ['urls', 'urls_from_run', 'record_written_urls'] },
  load: { title: 'Load', collapsed: false, opensWhenSet: [] },
  pacing: { title: 'Pacing and ramp', collapsed: true, opensWhenSet: [] },
  request: { title: 'Request', collapsed: false, opensWhenSet: [] },
  requestMore: { title: 'Body, timeout, HTTP version and connections', collapsed: true, opensWhenSet: [] },
  tls: {
    title: 'TLS',
    collapsed: true,
    opensWhenSet: ['insecure', 'tls.ca_cert', 'tls.client_cert', 'tls.client_key', 'tls.server_name', 'tls.alpn', 'tls.min_version', 'tls.no_resumption', 'tls.curves'],
  },
  grpc: { title: 'gRPC', collapsed: false, opensWhenSet: [] },
  distribution: { title: 'Distribution', collapsed: false, opensWhenSet: [] },
  labels: { title: 'Labels & thresholds', collapsed: false, opensWhenSet: [] },
  more: { title: 'More spec fields (JSON)', collapsed: true, opensWhenSet: ['more'] },
  actions: { title: 'Start', collapsed: false, opensWhenSet: [] },
} as const satisfies Record<string, { title: string; collapsed: boolean; opensWhenSet: readonly string[] }>;

export type SectionId = keyof typeof runFormSections;

/**
 * Where a spec field's value goes: 'spec' sets it at its path; a rule name
 * means a rule in run-form.ts places it (its codec still reads the text).
 */
export type Placement = 'spec' | 'length' | 'ramp' | 'grpc' | 'tls' | 'agents' | 'run';

/** The input attributes a row may set. */
export interface InputProps {
  placeholder?: string;
  inputMode?: 'decimal' | 'numeric';
  autoComplete?: 'off';
  spellCheck?: false;
  type?: 'url';
  required?: true;
  /** A class of the field's label: wide (a whole row), row-start. */
  className?: 'wide' | 'row-start';
  /** A textarea's rows and how much of the row it takes. */
  rows?: number;
  width?: 'wide' | 'half';
}

interface Row<K extends string, V extends string | boolean> {
  name: K;
  section: SectionId;
  kind: 'text' | 'area' | 'select' | 'check' | 'radio';
  default: V;
  label: string;
  hint?: string;
  props?: InputProps;
  options?: readonly (readonly [V, string])[];
  /** How the value maps into the spec and back; absent for a field that is not a spec path. */
  codec?: Codec<V>;
  placement?: Placement;
  /** The caption a checkbox is grouped under with its neighbours ("TLS", "Options"). */
  group?: string;
  /** When the input shows; always without it. */
  shownWhen?: (s: Readonly<Record<string, string | boolean>>) => boolean;
  /** The row whose block this input is drawn in (duration and count in the length choice's row). */
  nestedIn?: string;
  /** A note shown in place of nested inputs for a radio choice that has none. */
  notes?: Readonly<Record<string, string>>;
  /** A secret the API stores sealed and shows as REDACTED: the form shows "set" and a Replace button, never the value. */
  secret?: boolean;
}

type Extra<V extends string | boolean> = Partial<Pick<Row<string, V>, 'hint' | 'props' | 'codec' | 'placement' | 'shownWhen' | 'nestedIn' | 'secret'>>;

const text = <const K extends string>(name: K, section: SectionId, label: string, extra: Extra<string> & { default?: string } = {}) =>
  ({ name, section, kind: 'text', default: '', label, placement: 'spec', ...extra }) as Row<K, string>;
const area = <const K extends string>(name: K, section: SectionId, label: string, extra: Extra<string> = {}) =>
  ({ name, section, kind: 'area', default: '', label, placement: 'spec', ...extra }) as Row<K, string>;
const check = <const K extends string>(name: K, section: SectionId, label: string, group?: string, hint?: string) =>
  ({ name, section, kind: 'check', default: false, label, hint, group, codec: codecs.flag, placement: 'spec' }) as Row<K, boolean>;
const select = <const K extends string, V extends string>(name: K, section: SectionId, label: string, options: readonly (readonly [V, string])[], placement: Placement = 'spec') =>
  ({ name, section, kind: 'select', default: options[0]![0], label, options, codec: codecs.choice as unknown as Codec<V>, placement }) as Row<K, V>;
/** A field that is not a spec path: it fills the run or test around the spec. */
const own = <R extends Row<string, string | boolean>>(row: R): R => ({ ...row, codec: undefined, placement: undefined });

/** Fortio's usual percentiles, the default of the percentiles input. */
const defaultPercentiles = '50, 75, 90, 99, 99.9';

/** The field table, in the form's order. */
export const runFormFields = [
  text('url', 'target', 'URL', { codec: codecs.text, props: { className: 'wide', type: 'url', required: true, placeholder: 'http://service.internal:8080/path', autoComplete: 'off', spellCheck: false } }),
  own(text('name', 'target', 'Run name', { props: { placeholder: 'optional', autoComplete: 'off' } })),
  area('urls', 'urls', 'List of URLs', {
    codec: codecs.urlLines,
    hint: "Instead of the URL's path: one per line, each on the URL's scheme and host; # starts a comment (up to 10,000, HTTP/1.1)",
    props: { rows: 4, placeholder: 'http://service.internal:8080/a\nhttp://service.internal:8080/item/{rand:5000}' },
  }),
  select('url_order', 'urls', 'Order', [
    ['', 'Round robin (default)'],
    ['round_robin', 'Round robin'],
    ['random', 'Random'],
  ] as const),
  text('urls_from_run', 'urls', 'Read URLs written by run', {
    codec: codecs.text,
    hint: 'An ended run of this project that recorded its written URLs; they replace the list',
    props: { placeholder: 'run id', autoComplete: 'off', spellCheck: false },
  }),
  check('record_written_urls', 'urls', 'Record written URLs', 'Record', 'Keep the URL of every write answered 2xx (up to 1,000,000), to read back in a later run; HTTP/1.1'),
  // A stored test without qps reads back as 0 (as fast as possible), not the form's 8.
  text('qps', 'load', 'QPS', { default: '8', codec: { ...codecs.number, from: (v) => String(v ?? 0) }, hint: 'Total across agents; 0 = as fast as possible', props: { inputMode: 'decimal' } }),
  text('connections', 'load', 'Connections', { default: '8', codec: codecs.intZero, hint: 'In total (Fortio -c)', props: { inputMode: 'numeric' } }),
  {
    ...own(text('length', 'load', 'Run for')),
    kind: 'radio',
    default: 'duration',
    notes: { until_stopped: 'Runs until you press Stop on the run page.' },
    options: [
      ['duration', 'Duration'],
      ['count', 'Count'],
      ['until_stopped', 'Until stopped'],
    ],
  } as Row<'length', LengthMode>,
  text('duration', 'load', 'Duration', {
    default: '5s',
    codec: codecs.duration,
    placement: 'length',
    nestedIn: 'length',
    shownWhen: (s) => s.length === 'duration',
    hint: 'e.g. 30s, 1m30s (Fortio -t)',
    props: { placeholder: '30s' },
  }),
  text('count', 'load', 'Count', {
    codec: codecs.int,
    placement: 'length',
    nestedIn: 'length',
    shownWhen: (s) => s.length === 'count',
    hint: 'Exact number of calls (Fortio -n)',
    props: { inputMode: 'numeric' },
  }),
  select('pacing', 'pacing', 'Pacing', [
    ['', 'Default (open with qps, closed at 0)'],
    ['open', 'Open loop'],
    ['closed', 'Closed loop'],
    ['fortio', 'Fortio'],
  ] as const),
  check('jitter', 'pacing', 'Jitter', 'Options', '±10% noise on send times (Fortio -jitter)'),
  check('uniform', 'pacing', 'Uniform', 'Options', 'Spread the first sends over one period (Fortio -uniform)'),
  check('no_catchup', 'pacing', 'No catch-up', 'Options', 'Fortio pacing only (Fortio -nocatchup)'),
  check('abort_if_rate_not_held', 'pacing', 'Stop if rate not held', 'Options', 'Fail the run when it stays over 5% under the target rate for 5 s (Goader -stop-on-bad-rate)'),
  text('burst', 'pacing', 'Burst', { codec: codecs.int, hint: 'Open pacing: requests sent at once; the rate stays qps (Nighthawk)', props: { inputMode: 'numeric' } }),
  text('ramp.from', 'pacing', 'Ramp from (qps)', { codec: codecs.number, placement: 'ramp', props: { inputMode: 'decimal', placeholder: '0', className: 'row-start' } }),
  text('ramp.to', 'pacing', 'Ramp to (qps)', { codec: codecs.number, placement: 'ramp', props: { inputMode: 'decimal' } }),
  text('ramp.over', 'pacing', 'Ramp over', { codec: codecs.duration, placement: 'ramp', hint: 'Open pacing only', props: { placeholder: '30s' } }),
  text('method', 'request', 'Method', { codec: codecs.text, props: { placeholder: 'GET (POST with a payload)', autoComplete: 'off' } }),
  area('headers', 'request', 'Headers', { codec: codecs.headerLines, hint: 'One per line, “Name: value” (Fortio -H)', props: { placeholder: 'X-Request-Source: barrage\nAuthorization: Bearer …' } }),
  area('payload', 'requestMore', 'Payload', { codec: codecs.raw, hint: 'Request body; the message for TCP, UDP and gRPC ping' }),
  text('content_type', 'requestMore', 'Content type', { codec: codecs.text, props: { placeholder: 'application/json' } }),
  text('timeout', 'requestMore', 'Timeout', { codec: codecs.duration, hint: 'Per request', props: { placeholder: '3s' } }),
  text('abort_on', 'requestMore', 'Abort on status', { codec: codecs.int, hint: 'HTTP status that stops the run; -1 = socket errors', props: { inputMode: 'numeric' } }),
  check('h2', 'requestMore', 'HTTP/2 (h2)', 'HTTPS', 'HTTP/2 over TLS, for https URLs'),
  check('h3', 'requestMore', 'HTTP/3 (h3)', 'HTTPS', 'HTTP/3 over QUIC, for https URLs'),
  check('http10', 'requestMore', 'HTTP/1.0', 'HTTP', 'Fortio -http1.0'),
  check('compression', 'requestMore', 'Ask for gzip', 'HTTP', 'Bytes counted compressed (Fortio -compression)'),
  check('follow_redirects', 'requestMore', 'Follow redirects', 'HTTP', 'Up to 10 (Fortio -L)'),
  check('prefetch', 'requestMore', 'Prefetch connections', 'HTTP', 'Reopen closed connections outside the measure (Nighthawk)'),
  text('max_requests_per_connection', 'requestMore', 'Requests per connection', { codec: codecs.int, hint: 'Then a new connection; empty = no limit', props: { inputMode: 'numeric' } }),
  text('unix_socket', 'requestMore', 'Unix socket', { codec: codecs.text, hint: "Needs unix:PATH in the project's allow-list", props: { placeholder: '/run/app.sock' } }),
  check('insecure', 'tls', 'Skip certificate verification (-k)', 'Verification', 'Accept any server certificate: verification is on by default'),
  area('tls.ca_cert', 'tls', 'CA certificates (PEM)', {
    codec: codecs.text,
    placement: 'tls',
    hint: "Verify the server with these instead of the system's roots (-cacert)",
    props: { rows: 3, width: 'half', placeholder: '-----BEGIN CERTIFICATE-----' },
  }),
  area('tls.client_cert', 'tls', 'Client certificate (PEM)', {
    secret: true,
    codec: codecs.text,
    placement: 'tls',
    hint: 'For mTLS (-cert); needs its key. Sealed at rest, shown as set',
    props: { rows: 3, width: 'half', placeholder: '-----BEGIN CERTIFICATE-----' },
  }),
  area('tls.client_key', 'tls', 'Client key (PEM)', {
    secret: true,
    codec: codecs.text,
    placement: 'tls',
    hint: 'The private key of the client certificate (-key). Sealed at rest and never shown again',
    props: { rows: 3, width: 'half', placeholder: '-----BEGIN PRIVATE KEY-----' },
  }),
  text('tls.server_name', 'tls', 'Server name (SNI)', {
    codec: codecs.text,
    placement: 'tls',
    hint: 'Sent in SNI and verified in the certificate (-sni)',
    props: { placeholder: "the URL's host", autoComplete: 'off', spellCheck: false },
  }),
  {
    ...select(
      'tls.alpn',
      'tls',
      'ALPN',
      [
        ['', 'http/1.1 (default)'],
        ['http/1.1', 'http/1.1'],
        ['h2', 'h2 (HTTP/2)'],
      ] as const,
      'tls',
    ),
    hint: 'Protocol offered over TLS (-alpn); gRPC and HTTP/3 set their own',
    shownWhen: (s: Readonly<Record<string, string | boolean>>) => !s.h3 && !/^grpcs?:/i.test(String(s.url).trim()),
  },
  {
    ...select(
      'tls.min_version',
      'tls',
      'Minimum TLS version',
      [
        ['', '1.2 (default)'],
        ['1.0', '1.0'],
        ['1.1', '1.1'],
        ['1.2', '1.2'],
        ['1.3', '1.3'],
      ] as const,
      'tls',
    ),
    hint: 'Lowest version accepted (-tls-min); HTTP/3 is always 1.3',
  },
  { ...check('tls.no_resumption', 'tls', 'No session resumption', 'Handshakes', 'Every new connection makes a full handshake (-no-tls-resumption)'), placement: 'tls' as const },
  text('tls.curves', 'tls', 'Key exchange groups', {
    codec: codecs.wordList,
    placement: 'tls',
    hint: 'Offered in this order (-curves), e.g. X25519, P-256 as fortio does; default Go’s, led by X25519MLKEM768',
    props: { placeholder: 'X25519MLKEM768, X25519, P-256', autoComplete: 'off', spellCheck: false },
  }),
  select(
    'grpc.mode',
    'grpc',
    'Mode',
    [
      ['', 'Health check (default)'],
      ['health', 'Health check'],
      ['ping', 'Fortio ping'],
      ['method', 'Any unary method (server reflection)'],
    ] as const,
    'grpc',
  ),
  text('grpc.service', 'grpc', 'Service', {
    codec: codecs.text,
    placement: 'grpc',
    shownWhen: (s) => s['grpc.mode'] !== 'ping' && s['grpc.mode'] !== 'method',
    props: { placeholder: "empty = the server's overall health" },
  }),
  text('grpc.ping_delay', 'grpc', 'Ping delay', {
    codec: codecs.duration,
    placement: 'grpc',
    shownWhen: (s) => s['grpc.mode'] === 'ping',
    hint: 'The server waits this long before replying',
    props: { placeholder: '0s' },
  }),
  text('grpc.method', 'grpc', 'Method', {
    codec: codecs.text,
    placement: 'grpc',
    shownWhen: (s) => s['grpc.mode'] === 'method',
    hint: 'Found by server reflection; the payload is its request in JSON',
    props: { placeholder: 'package.Service/Method' },
  }),
  text('grpc.streams', 'grpc', 'Streams', { codec: codecs.int, placement: 'grpc', hint: 'Calls in flight per connection (Fortio -s)', props: { inputMode: 'numeric', placeholder: '1' } }),
  text('agents.count', 'distribution', 'Agents', {
    codec: codecs.int,
    placement: 'agents',
    hint: 'How many agents share the load; empty or 0 = every matching agent',
    props: { inputMode: 'numeric', placeholder: 'all' },
  }),
  area('agents.selector', 'distribution', 'Agent selector', {
    codec: codecs.pairLines,
    placement: 'agents',
    hint: 'Only agents with these labels, one key=value per line',
    props: { rows: 2, width: 'half', placeholder: 'region=eu-west' },
  }),
  area('labels', 'labels', 'Labels', { codec: codecs.pairLines, placement: 'run', hint: 'One key=value per line, to find and compare runs', props: { rows: 3, width: 'half', placeholder: 'team=payments\nbuild=1234' } }),
  own(area('thresholds', 'labels', 'Thresholds', { hint: 'One expression per line, stored with the run', props: { rows: 3, width: 'half', placeholder: 'p(99) < 250ms\nerror_rate < 1%' } })),
  text('percentiles', 'labels', 'Percentiles', {
    default: defaultPercentiles,
    codec: { to: numberList, from: (v) => (Array.isArray(v) && v.length > 0 ? v.join(', ') : defaultPercentiles) },
    hint: 'Comma-separated (Fortio -p)',
  }),
  own(
    area('more', 'more', 'More spec fields', {
      hint: 'A JSON object of the spec fields with no input above: requests (a request mix), stages, latency_header, payload_file',
      props: { rows: 6, placeholder: '{"stages": [{"qps": 50, "duration": "30s"}, {"qps": 100, "duration": "30s"}]}' },
    }),
  ),
  own(check('save_as_test', 'actions', 'Save as a test')),
  own(text('test_name', 'actions', 'Test name', { props: { required: true, autoComplete: 'off' }, shownWhen: (s) => s.save_as_test === true })),
] as const;

type FieldRow = (typeof runFormFields)[number];

/**
 * RunFormState holds the form's inputs as typed, one key per row of the
 * table. A spec field's key is its JSON path (`qps`, `ramp.over`,
 * `agents.count`).
 */
export type RunFormState = { [R in FieldRow as R['name']]: R['default'] };
export type FormField = keyof RunFormState;
export type FieldErrors = Partial<Record<FormField, string>>;

/** The table's rows by name. */
export const fieldRow = Object.fromEntries(runFormFields.map((r) => [r.name, r])) as { [R in FieldRow as R['name']]: R };

/** Fortio's defaults: 8 qps, 8 connections, 5 s, the usual percentiles. */
export const defaultFormState = Object.fromEntries(runFormFields.map((r) => [r.name, r.default])) as RunFormState;

/** The form's fields that fill the spec path of the same name (`qps`, `ramp.over`, `agents.count`). */
export const specPathFields: ReadonlySet<string> = new Set(runFormFields.filter((r) => r.codec !== undefined).map((r) => r.name));

/**
 * The spec's top-level fields that have inputs of their own (`until_stopped`
 * through the length choice). Every other field of a spec (requests, stages,
 * payload_file, latency_header, …) is edited as JSON in `more`, so a test read
 * into the form loses nothing.
 */
export const formSpecFields: ReadonlySet<string> = new Set([...[...specPathFields].map((p) => p.split('.')[0]!), 'until_stopped']);

/** The fields of each collapsed section, so an error there opens it. */
export const collapsedSectionFields = Object.fromEntries(
  (Object.keys(runFormSections) as SectionId[])
    .filter((id) => runFormSections[id].collapsed)
    .map((id) => [id, runFormFields.filter((r) => r.section === id).map((r) => r.name as FormField)]),
) as Partial<Record<SectionId, FormField[]>>;

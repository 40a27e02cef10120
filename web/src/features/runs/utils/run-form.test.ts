import type { Schemas } from '@/lib/api-client';
import { asStoredTestRun, defaultFormState, formFromTest, formSpecFields, protocolOf, redactedValue, runOfTest, storedSecretErrors, toRunRequest, type RunFormState } from './run-form';

const form = (over: Partial<RunFormState>): RunFormState => ({ ...defaultFormState, url: 'http://127.0.0.1:8080/', ...over });

function built(over: Partial<RunFormState>, project = 'default') {
  const r = toRunRequest(form(over), project);
  if (!r.ok) throw new Error(`unexpected errors: ${JSON.stringify(r.errors)}`);
  return r;
}

function errorsOf(over: Partial<RunFormState>) {
  const r = toRunRequest(form(over), 'default');
  if (r.ok) throw new Error('expected errors');
  return r.errors;
}

describe('toRunRequest', () => {
  it('maps Fortio defaults to a minimal body', () => {
    expect(built({}).run).toEqual({
      project: 'default',
      source: 'ui',
      spec: { url: 'http://127.0.0.1:8080/', qps: 8, connections: 8, duration: '5s', percentiles: [50, 75, 90, 99, 99.9] },
    });
  });

  it('omits empty fields so the API defaults apply', () => {
    const r = built({ qps: '', connections: ' ', duration: '', percentiles: '', method: '', timeout: '' });
    expect(r.run.spec).toEqual({ url: 'http://127.0.0.1:8080/' });
    expect(r.run).not.toHaveProperty('labels');
    expect(r.run).not.toHaveProperty('thresholds');
    expect(r.run).not.toHaveProperty('name');
  });

  it('parses numbers, and a bare duration as seconds', () => {
    const r = built({ qps: '200', connections: '4', duration: '30', 'agents.count': '2' });
    expect(r.run.spec).toMatchObject({ qps: 200, connections: 4, duration: 30, agents: { count: 2 } });
    expect(built({ qps: '0.5', duration: '1m30s' }).run.spec).toMatchObject({ qps: 0.5, duration: '1m30s' });
  });

  it('keeps out-of-range numbers for the API to judge', () => {
    expect(built({ qps: '-1' }).run.spec.qps).toBe(-1);
  });

  it('refuses text that is not a number before sending', () => {
    expect(errorsOf({ qps: 'abc', connections: '2.5', 'agents.count': 'two' })).toEqual({
      qps: 'must be a number',
      connections: 'must be a whole number',
      'agents.count': 'must be a whole number',
    });
  });

  it('refuses a duration that is neither Go syntax nor seconds', () => {
    expect(errorsOf({ duration: 'ten seconds' }).duration).toMatch(/duration like 30s/);
    expect(errorsOf({ timeout: '5 s' }).timeout).toMatch(/duration/);
  });

  it('requires the URL', () => {
    expect(errorsOf({ url: '  ' })).toEqual({ url: 'is required' });
  });

  it('sends count instead of duration in count mode, and requires it', () => {
    const spec = built({ length: 'count', count: '1000' }).run.spec;
    expect(spec.count).toBe(1000);
    expect(spec).not.toHaveProperty('duration');
    expect(errorsOf({ length: 'count', count: '' }).count).toMatch(/required/);
    expect(built({ length: 'until_stopped' }).run.spec).toMatchObject({ until_stopped: true });
    expect(built({ length: 'until_stopped' }).run.spec).not.toHaveProperty('duration');
  });

  it('parses headers, labels, selector and thresholds line by line', () => {
    const r = built({
      headers: 'X-Id:  42\n\n  Authorization: Bearer a:b  ',
      labels: 'team=payments\nenv = staging',
      'agents.selector': 'region=eu',
      thresholds: 'p(99) < 250ms\n\n error_rate < 1% ',
      name: '  smoke ',
    });
    expect(r.run.spec.headers).toEqual(['X-Id: 42', 'Authorization: Bearer a:b']);
    expect(r.run.labels).toEqual({ team: 'payments', env: 'staging' });
    expect(r.run.spec.agents).toEqual({ selector: { region: 'eu' } });
    expect(r.run.thresholds).toEqual(['p(99) < 250ms', 'error_rate < 1%']);
    expect(r.run.name).toBe('smoke');
  });

  it('names the line of a malformed header or label', () => {
    const e = errorsOf({ headers: 'X-Ok: 1\nno colon here', labels: 'team=a\nteam=b' });
    expect(e.headers).toBe('line 2: write it as “Name: value”');
    expect(e.labels).toBe('“team” is given twice');
  });

  it('parses percentiles and reports a bad one', () => {
    expect(built({ percentiles: '50,90, 99.99' }).run.spec.percentiles).toEqual([50, 90, 99.99]);
    expect(errorsOf({ percentiles: '50, p99' }).percentiles).toBe('“p99” is not a number');
  });

  it('sends a ramp only when given, and needs its target and length', () => {
    expect(built({ 'ramp.from': '0', 'ramp.to': '100', 'ramp.over': '10s' }).run.spec.ramp).toEqual({ from: 0, to: 100, over: '10s' });
    expect(built({ 'ramp.to': '100', 'ramp.over': '10s' }).run.spec.ramp).toEqual({ to: 100, over: '10s' });
    expect(errorsOf({ 'ramp.from': '5' })).toEqual({ 'ramp.to': 'is required for a ramp', 'ramp.over': 'is required for a ramp' });
  });

  it('sends gRPC options only for grpc URLs, and only those of the mode', () => {
    expect(built({ url: 'http://x/', 'grpc.mode': 'ping', 'grpc.ping_delay': '1s' }).run.spec).not.toHaveProperty('grpc');
    expect(built({ url: 'grpc://x:9000', 'grpc.mode': 'ping', 'grpc.service': 'svc', 'grpc.ping_delay': '1s' }).run.spec.grpc).toEqual({
      mode: 'ping',
      ping_delay: '1s',
    });
    expect(built({ url: 'grpcs://x:9000', 'grpc.service': 'svc' }).run.spec.grpc).toEqual({ service: 'svc' });
    expect(built({ url: 'grpc://x:9000' }).run.spec).not.toHaveProperty('grpc');
    expect(
      built({ url: 'grpc://x:9000', 'grpc.mode': 'method', 'grpc.method': ' fgrpc.PingServer/Ping ', 'grpc.service': 'svc', 'grpc.streams': '4' })
        .run.spec.grpc,
    ).toEqual({ mode: 'method', method: 'fgrpc.PingServer/Ping', streams: 4 });
    expect(errorsOf({ url: 'grpc://x:9000', 'grpc.streams': 'many' })['grpc.streams']).toBeDefined();
  });

  it('sends flags only when set', () => {
    const spec = built({ h2: true, jitter: true, pacing: 'fortio', no_catchup: true, abort_if_rate_not_held: true, payload: ' {"a":1}', content_type: 'application/json' })
      .run.spec;
    expect(spec).toMatchObject({ h2: true, jitter: true, pacing: 'fortio', no_catchup: true, abort_if_rate_not_held: true, payload: ' {"a":1}', content_type: 'application/json' });
    expect(spec).not.toHaveProperty('uniform');
    expect(spec).not.toHaveProperty('insecure');
  });

  it('sends the connection and HTTP options (issue #14) and reads them back from a test', () => {
    const spec = built({
      qps: '50',
      burst: '5',
      http10: true,
      compression: true,
      prefetch: true,
      unix_socket: ' /run/app.sock ',
      max_requests_per_connection: '100',
    }).run.spec;
    expect(spec).toMatchObject({ burst: 5, http10: true, compression: true, prefetch: true, unix_socket: '/run/app.sock', max_requests_per_connection: 100 });
    expect(spec).not.toHaveProperty('follow_redirects');
    const back = formFromTest({ spec, labels: {}, thresholds: [] });
    expect(back).toMatchObject({ burst: '5', http10: true, compression: true, prefetch: true, unix_socket: '/run/app.sock', max_requests_per_connection: '100' });
    expect(built({ follow_redirects: true }).run.spec.follow_redirects).toBe(true);
    expect(errorsOf({ burst: 'many', max_requests_per_connection: '1.5' })).toEqual({
      burst: 'must be a whole number',
      max_requests_per_connection: 'must be a whole number',
    });
  });

  it('sends the URL list, its order, a run to read URLs from and the written-URL record', () => {
    const spec = built({
      urls: 'http://127.0.0.1:8080/a\n\n  # reads\n  http://127.0.0.1:8080/item/{rand:50}  ',
      url_order: 'random',
      urls_from_run: ' 0190b1c2-0000-7000-8000-0000000000aa ',
      record_written_urls: true,
      h3: true,
    }).run.spec;
    expect(spec).toMatchObject({
      urls: ['http://127.0.0.1:8080/a', 'http://127.0.0.1:8080/item/{rand:50}'],
      url_order: 'random',
      urls_from_run: '0190b1c2-0000-7000-8000-0000000000aa',
      record_written_urls: true,
      h3: true,
    });
    const back = formFromTest({ spec, labels: {}, thresholds: [] });
    expect(back).toMatchObject({
      urls: 'http://127.0.0.1:8080/a\nhttp://127.0.0.1:8080/item/{rand:50}',
      url_order: 'random',
      urls_from_run: '0190b1c2-0000-7000-8000-0000000000aa',
      record_written_urls: true,
      h3: true,
      more: '',
    });
    for (const f of ['urls', 'url_order', 'urls_from_run', 'record_written_urls', 'h3']) expect(built({}).run.spec).not.toHaveProperty(f);
  });

  it('merges the more-spec-fields JSON into the spec', () => {
    const mix = [
      { url: 'http://127.0.0.1:8080/r', weight: 8 },
      { url: 'http://127.0.0.1:8080/w', method: 'PUT', body: '{"id":{seq}}', weight: 2 },
    ];
    const spec = built({ more: JSON.stringify({ requests: mix, latency_header: 'Server-Timing' }) }).run.spec;
    expect(spec.requests).toEqual(mix);
    expect(spec.latency_header).toBe('Server-Timing');
    expect(spec.url).toBe('http://127.0.0.1:8080/');
    expect(built({ more: '  \n ' }).run.spec).toEqual(built({}).run.spec);
  });

  it('knows which spec fields have inputs, blocks by their first key', () => {
    for (const f of ['url', 'urls', 'qps', 'ramp', 'grpc', 'agents', 'until_stopped', 'labels', 'h3']) expect(formSpecFields.has(f)).toBe(true);
    for (const f of ['requests', 'stages', 'payload_file', 'latency_header', 'name', 'length', 'thresholds', 'more', 'ramp.to']) expect(formSpecFields.has(f)).toBe(false);
  });

  it('refuses more-spec-fields text that is not an object of fields without inputs', () => {
    expect(errorsOf({ more: '{"stages": [' }).more).toMatch(/^is not JSON: /);
    expect(errorsOf({ more: '[1, 2]' }).more).toMatch(/must be a JSON object of spec fields/);
    expect(errorsOf({ more: 'null' }).more).toMatch(/must be a JSON object of spec fields/);
    expect(errorsOf({ more: '{"qps": 5, "stages": []}' }).more).toBe('“qps” has its own input above');
    expect(errorsOf({ more: '{"qps": 5, "url": "x"}' }).more).toBe('“qps”, “url” have their own inputs above');
  });

  it('builds the test body too when saving as a test, and needs its name', () => {
    const r = built({ save_as_test: true, test_name: 'checkout smoke', labels: 'team=a', thresholds: 'p(99) < 1s' });
    expect(r.test).toEqual({ project: 'default', name: 'checkout smoke', spec: r.run.spec, labels: { team: 'a' }, thresholds: ['p(99) < 1s'] });
    expect(runOfTest(r.run, 't-1')).toEqual({ project: 'default', test: 't-1', source: 'ui' });
    expect(errorsOf({ save_as_test: true, test_name: ' ' }).test_name).toMatch(/required/);
  });

  it('leaves the project out when none is chosen', () => {
    expect(built({}, '').run).not.toHaveProperty('project');
  });
});

describe('protocolOf', () => {
  it('reads the scheme', () => {
    expect(protocolOf('https://a/')).toBe('https');
    expect(protocolOf('GRPC://a:1')).toBe('grpc');
    expect(protocolOf('ftp://a/')).toBe('unknown');
    expect(protocolOf('example.com')).toBeUndefined();
  });
});

describe('formFromTest and asStoredTestRun', () => {
  const test: Schemas['Test'] = {
    id: '0190b1c2-0000-7000-8000-000000000001',
    project_id: 'p',
    name: 'stored',
    description: '',
    // As the API stores it: normalized, durations as Go strings.
    spec: { url: 'http://127.0.0.1:9/', qps: 50, connections: 4, duration: '10s', pacing: 'open', method: 'GET', timeout: '3s', percentiles: [50, 99], headers: ['X-A: 1'] },
    thresholds: ['p(99) < 1s'],
    labels: { team: 'a' },
    created_at: '2025-01-01T00:00:00Z',
    updated_at: '2025-01-01T00:00:00Z',
  };

  it('fills the form from a stored test', () => {
    const f = formFromTest(test);
    expect(f).toMatchObject({ url: 'http://127.0.0.1:9/', qps: '50', connections: '4', duration: '10s', headers: 'X-A: 1', labels: 'team=a', thresholds: 'p(99) < 1s', percentiles: '50, 99' });
  });

  it('runs the stored test when the spec is unchanged, with extra labels', () => {
    const r = built({ ...formFromTest(test), labels: 'team=a\nbuild=7' });
    expect(asStoredTestRun(r.run, test)).toEqual({
      project: 'default',
      test: test.id,
      labels: { team: 'a', build: '7' },
      thresholds: ['p(99) < 1s'],
      source: 'ui',
    });
  });

  it('keeps a stored gRPC method and its streams', () => {
    const grpcTest = { ...test, spec: { url: 'grpc://127.0.0.1:9', duration: '10s', payload: '{"seq": 1}', grpc: { mode: 'method' as const, method: 'fgrpc.PingServer/Ping', streams: 4 } } };
    const f = formFromTest(grpcTest);
    expect(f).toMatchObject({ 'grpc.mode': 'method', 'grpc.method': 'fgrpc.PingServer/Ping', 'grpc.streams': '4' });
    expect(built(f).run.spec.grpc).toEqual(grpcTest.spec.grpc);
  });

  it('keeps the spec fields it has no input for, and still runs the test when nothing changed', () => {
    const stagesTest = {
      ...test,
      spec: { url: 'http://127.0.0.1:9/', qps: 0, duration: '1m', pacing: 'open' as const, stages: [{ qps: 10, duration: '30s' }, { qps: 20, duration: '30s' }], payload_file: '/data/body.json' },
    };
    const f = formFromTest(stagesTest);
    expect(JSON.parse(f.more)).toEqual({ stages: stagesTest.spec.stages, payload_file: '/data/body.json' });
    const r = built({ ...f, labels: 'team=a' });
    expect(r.run.spec).toMatchObject({ stages: stagesTest.spec.stages, payload_file: '/data/body.json', qps: 0 });
    expect(asStoredTestRun(r.run, stagesTest)).toMatchObject({ test: test.id });
    // Edited, the spec is sent inline, and the stages go with it.
    const edited = built({ ...f, labels: 'team=a', duration: '2m' });
    expect(asStoredTestRun(edited.run, stagesTest)).toBeUndefined();
    expect(edited.run.spec.stages).toEqual(stagesTest.spec.stages);
  });

  it('sends the edited spec inline once it changes or drops a test label', () => {
    expect(asStoredTestRun(built({ ...formFromTest(test), qps: '60' }).run, test)).toBeUndefined();
    expect(asStoredTestRun(built({ ...formFromTest(test), labels: '' }).run, test)).toBeUndefined();
  });
});

describe('the TLS inputs', () => {
  const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
  const key = '-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----';

  it('send nothing by default: verification stays on', () => {
    const spec = built({ url: 'https://example.test/' }).run.spec;
    expect(spec).not.toHaveProperty('tls');
    expect(spec).not.toHaveProperty('insecure');
  });

  it('fill the spec’s tls block, trimmed, and -k as insecure', () => {
    const spec = built({
      url: 'https://example.test/',
      insecure: true,
      'tls.ca_cert': `  ${ca}\n`,
      'tls.client_cert': ca,
      'tls.client_key': `${key}\n`,
      'tls.server_name': ' sni.example.test ',
      'tls.alpn': 'h2',
      'tls.min_version': '1.3',
      'tls.no_resumption': true,
      'tls.curves': ' X25519,P-256  P-384 ',
    }).run.spec;
    expect(spec.insecure).toBe(true);
    expect(spec.tls).toEqual({
      ca_cert: ca,
      client_cert: ca,
      client_key: key,
      server_name: 'sni.example.test',
      alpn: 'h2',
      min_version: '1.3',
      no_resumption: true,
      curves: ['X25519', 'P-256', 'P-384'],
    });
  });

  it('leave out ALPN where the protocol sets it (gRPC, HTTP/3)', () => {
    expect(built({ url: 'grpcs://example.test:443', 'tls.alpn': 'h2', 'tls.min_version': '1.3' }).run.spec.tls).toEqual({ min_version: '1.3' });
    expect(built({ url: 'https://example.test/', h3: true, 'tls.alpn': 'http/1.1', 'tls.server_name': 'a.test' }).run.spec.tls).toEqual({ server_name: 'a.test' });
    expect(built({ url: 'https://example.test/', 'tls.alpn': 'http/1.1' }).run.spec.tls).toEqual({ alpn: 'http/1.1' });
  });

  it('read a stored test back with its sealed key as REDACTED, which runs only as the unedited test', () => {
    const test: Schemas['Test'] = {
      id: '0190b1c2-0000-7000-8000-000000000009',
      project_id: 'p',
      name: 'mtls',
      description: '',
      spec: { url: 'https://example.test/', qps: 10, tls: { ca_cert: ca, client_cert: redactedValue, client_key: redactedValue, min_version: '1.3', curves: ['X25519', 'P-256'] } },
      thresholds: [],
      labels: {},
      created_at: '2025-01-01T00:00:00Z',
      updated_at: '2025-01-01T00:00:00Z',
    };
    const state = formFromTest(test);
    expect(state).toMatchObject({ 'tls.ca_cert': ca, 'tls.client_cert': redactedValue, 'tls.client_key': redactedValue, 'tls.min_version': '1.3', 'tls.curves': 'X25519, P-256', more: '' });
    const same = toRunRequest(state, 'default');
    if (!same.ok) throw new Error('unexpected errors');
    expect(asStoredTestRun(same.run, test)).toEqual({ project: 'default', test: test.id, source: 'ui' });
    expect(storedSecretErrors(same.run.spec)).toEqual({
      'tls.client_cert': expect.stringMatching(/sealed with the test/),
      'tls.client_key': expect.stringMatching(/paste it again/),
    });
    const edited = toRunRequest({ ...state, qps: '20' }, 'default');
    if (!edited.ok) throw new Error('unexpected errors');
    expect(asStoredTestRun(edited.run, test)).toBeUndefined();
    expect(storedSecretErrors({ ...edited.run.spec, tls: { client_cert: ca, client_key: key } })).toEqual({});
  });
});

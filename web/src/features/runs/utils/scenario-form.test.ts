import { dataFormat, defaultScenarioForm, maxDataBytes, scenarioProblems, toScenarioRequest } from './scenario-form';

const yaml = `
name: login then read
steps:
  - name: login
    url: http://127.0.0.1:8088/login
`;

describe('toScenarioRequest', () => {
  it('sends a YAML scenario as the spec object, open-loop at the rate for the duration', () => {
    const r = toScenarioRequest({ ...defaultScenarioForm, name: ' nightly ', scenario: yaml, rate: '20' }, 'default');
    expect(r).toEqual({
      ok: true,
      body: {
        project: 'default',
        name: 'nightly',
        spec: {
          scenario: { name: 'login then read', steps: [{ name: 'login', url: 'http://127.0.0.1:8088/login' }] },
          connections: 8,
          iterations_per_second: 20,
          duration: '10s',
        },
      },
    });
  });

  it('reads JSON too; no rate is a closed loop; a count bounds the run instead of the duration', () => {
    const r = toScenarioRequest(
      { ...defaultScenarioForm, scenario: '{"name": "j", "steps": []}', rate: ' ', count: '40', thresholds: 'step("a").count == 40\n\n checks("ok") == 100% ' },
      'p',
    );
    expect(r.ok && r.body.spec).toEqual({ scenario: { name: 'j', steps: [] }, connections: 8, count: 40 });
    expect(r.ok && r.body.thresholds).toEqual(['step("a").count == 40', 'checks("ok") == 100%']);
  });

  it('refuses what is not a scenario or a number, naming each input', () => {
    const r = toScenarioRequest({ ...defaultScenarioForm, scenario: 'steps: [', rate: 'fast', connections: '2.5', count: '-1' }, 'p');
    expect(r.ok).toBe(false);
    const errors = r.ok ? {} : r.errors;
    expect(errors.scenario).toMatch(/^Not YAML or JSON: /);
    expect(Object.keys(errors).sort()).toEqual(['connections', 'count', 'rate', 'scenario']);
    const list = toScenarioRequest({ ...defaultScenarioForm, scenario: '- a\n- b', duration: '' }, 'p');
    expect(list.ok ? {} : list.errors).toEqual({
      scenario: 'The scenario must be an object with a name and steps.',
      duration: 'A duration such as 30s, or a number of iterations.',
    });
  });
});

describe('toScenarioRequest with labels and a data file', () => {
  const data = { name: 'users.csv', content: 'user\nann\nbob\n', split: true, random: false };

  it('adds the file to the scenario as its data, and the labels to the run', () => {
    const r = toScenarioRequest({ ...defaultScenarioForm, scenario: yaml, labels: 'team=pay\n\nbuild = 7', data }, 'p');
    expect(r.ok && r.body.labels).toEqual({ team: 'pay', build: '7' });
    expect(r.ok && r.body.spec?.scenario?.data).toEqual({ format: 'csv', content: 'user\nann\nbob\n', split: true });
    const j = toScenarioRequest({ ...defaultScenarioForm, scenario: yaml, data: { ...data, name: 'u.NDJSON', split: false, random: true } }, 'p');
    expect(j.ok && j.body.spec?.scenario?.data).toEqual({ format: 'jsonl', content: data.content, order: 'random' });
    expect([dataFormat('a.jsonl'), dataFormat('a.csv'), dataFormat('a.txt')]).toEqual(['jsonl', 'csv', 'csv']);
  });

  it("refuses a file beside the scenario's own data, a file too large, and a label without =", () => {
    const own = toScenarioRequest({ ...defaultScenarioForm, scenario: `${yaml}data: {content: "a\\n1"}\n`, data }, 'p');
    expect(own.ok ? {} : own.errors).toEqual({ data: 'The scenario has data of its own: remove it from the scenario, or remove the file.' });
    const big = toScenarioRequest({ ...defaultScenarioForm, scenario: yaml, labels: 'team', data: { ...data, content: 'x'.repeat(maxDataBytes + 1) } }, 'p');
    expect(big.ok ? {} : big.errors).toEqual({
      data: 'users.csv is larger than 524288 bytes, the most a scenario carries.',
      labels: 'line 1: write it as “key=value”',
    });
  });

  it("puts the data's errors next to the file when the form attached it, else under the document", () => {
    const items = [
      { field: 'spec.scenario.data.content', message: 'line 3: wrong number of fields' },
      { field: 'spec.scenario.data.split', message: '2 rows cannot give each of the 3 agents rows of its own' },
      { field: 'labels.team', message: 'too long' },
    ];
    const p = scenarioProblems(items, true);
    expect(p.fields).toEqual({
      data: 'line 3: wrong number of fields; split: 2 rows cannot give each of the 3 agents rows of its own',
      labels: 'too long',
    });
    expect(p.inScenario).toEqual([]);
    expect(scenarioProblems(items).inScenario.map((e) => e.field)).toEqual(['spec.scenario.data.content', 'spec.scenario.data.split']);
  });
});

describe('scenarioProblems', () => {
  it('puts the API errors next to the inputs and under the document', () => {
    const p = scenarioProblems([
      { field: 'spec.scenario.steps[1].headers.Authorization', message: 'unknown variable "tokn"' },
      { field: 'spec.iterations_per_second', message: 'must be greater than 0' },
      { field: 'spec.qps', message: 'does not apply' },
      { field: 'thresholds[1]', message: 'the scenario has no step named "x"' },
    ]);
    expect(p.fields).toEqual({ rate: 'must be greater than 0', thresholds: 'line 2: the scenario has no step named "x"' });
    expect(p.inScenario.map((e) => e.field)).toEqual(['spec.scenario.steps[1].headers.Authorization']);
    expect(p.rest.map((e) => e.field)).toEqual(['spec.qps']);
  });
});

describe('the TLS settings of the https:// and grpcs:// steps', () => {
  it('sends insecure and the set tls fields only, trimmed', () => {
    const none = toScenarioRequest({ ...defaultScenarioForm, scenario: yaml }, 'p');
    expect(none.ok && Object.keys(none.body.spec ?? {}).sort()).toEqual(['connections', 'duration', 'iterations_per_second', 'scenario']);
    const r = toScenarioRequest(
      { ...defaultScenarioForm, scenario: yaml, insecure: true, caCert: ' CA PEM \n', clientCert: 'CERT', clientKey: 'KEY', serverName: ' localhost ' },
      'p',
    );
    expect(r.ok && r.body.spec?.insecure).toBe(true);
    expect(r.ok && r.body.spec?.tls).toEqual({ ca_cert: 'CA PEM', client_cert: 'CERT', client_key: 'KEY', server_name: 'localhost' });
  });

  it('puts the API errors of a tls field next to it, and those of tls as a whole above the fields', () => {
    const p = scenarioProblems([
      { field: 'spec.tls.ca_cert', message: 'holds no PEM certificate' },
      { field: 'spec.tls.client_key', message: 'does not match tls.client_cert' },
      { field: 'spec.tls', message: "applies to a scenario's https:// and grpcs:// steps, and it has none" },
      { field: 'spec.tls.alpn', message: 'a scenario chooses' },
    ]);
    expect(p.fields).toEqual({
      caCert: 'holds no PEM certificate',
      clientKey: 'does not match tls.client_cert',
      tls: "tls: applies to a scenario's https:// and grpcs:// steps, and it has none; tls.alpn: a scenario chooses",
    });
    expect(p.rest).toEqual([]);
  });
});

import type { Schemas } from '@/lib/api-client';
import { formErrorsOf, formValuesOf, parseLabels, parseSpec, parseThresholds, toTestBody, type TestFormValues } from './test-form';

const values: TestFormValues = {
  name: '  checkout p99  ',
  description: 'nightly',
  labels: 'team=payments\n\n env = staging \nquery=a=b',
  thresholds: 'p(99) < 250ms\n\n  errors < 1%  ',
  spec: '{"url": "http://127.0.0.1:8081/", "qps": 50, "duration": "10s"}',
  schedule: ' 0 3 * * 1-5 ',
  timezone: ' Europe/Berlin ',
  baselineLast: ' 5 ',
};

describe('parseLabels', () => {
  it('reads key=value lines, trimming and skipping blanks', () => {
    expect(parseLabels(values.labels)).toEqual({ labels: { team: 'payments', env: 'staging', query: 'a=b' } });
  });
  it('names the line that is not key=value', () => {
    expect(parseLabels('a=1\noops').error).toBe('line 2: "oops" is not key=value');
    expect(parseLabels('=x').error).toBe('line 1: "=x" is not key=value');
  });
  it('refuses a key given twice', () => {
    expect(parseLabels('a=1\na=2').error).toBe('line 2: label "a" is given twice');
  });
  it('allows an empty value', () => {
    expect(parseLabels('flag=')).toEqual({ labels: { flag: '' } });
  });
});

describe('parseThresholds', () => {
  it('keeps one trimmed threshold per non-blank line', () => {
    expect(parseThresholds(values.thresholds)).toEqual(['p(99) < 250ms', 'errors < 1%']);
    expect(parseThresholds('\n \n')).toEqual([]);
  });
});

describe('parseSpec', () => {
  it('parses a JSON object', () => {
    expect(parseSpec('{"url":"http://x/","qps":5}')).toEqual({ spec: { url: 'http://x/', qps: 5 } });
  });
  it('says when the text is not JSON', () => {
    expect(parseSpec('{"url":')).toEqual({ error: expect.stringMatching(/^not valid JSON: /) });
  });
  it('wants an object, not an array, null or a number', () => {
    for (const t of ['[]', 'null', '42', '"url"']) expect(parseSpec(t).error).toMatch(/must be a JSON object/);
  });
});

describe('toTestBody', () => {
  it('maps the form to the request body', () => {
    expect(toTestBody(values)).toEqual({
      body: {
        name: 'checkout p99',
        description: 'nightly',
        labels: { team: 'payments', env: 'staging', query: 'a=b' },
        thresholds: ['p(99) < 250ms', 'errors < 1%'],
        spec: { url: 'http://127.0.0.1:8081/', qps: 50, duration: '10s' },
        schedule: '0 3 * * 1-5',
        timezone: 'Europe/Berlin',
        baseline_last: 5,
      },
    });
  });

  it('leaves baseline_last out when empty, which a PUT reads as none', () => {
    const r = toTestBody({ ...values, baselineLast: '' });
    expect(r).toHaveProperty('body');
    expect('body' in r && 'baseline_last' in r.body).toBe(false);
  });

  it('refuses a pool outside 1 to 20 or not a whole number', () => {
    for (const bad of ['0', '21', '2.5', 'five', '-3']) {
      expect(toTestBody({ ...values, baselineLast: bad })).toEqual({
        errors: { baselineLast: 'give a whole number of runs from 1 to 20, or leave it empty for the newest passing run' },
      });
    }
  });

  it('sends an empty schedule for none, and UTC when the zone is left blank', () => {
    const r = toTestBody({ ...values, schedule: '  ', timezone: '' });
    expect(r).toMatchObject({ body: { schedule: '', timezone: 'UTC' } });
  });

  it('collects every field error at once and sends nothing', () => {
    expect(toTestBody({ ...values, name: ' ', labels: 'x', spec: 'nope' })).toEqual({
      errors: {
        name: 'give the test a name',
        labels: 'line 1: "x" is not key=value',
        spec: expect.stringMatching(/^not valid JSON/),
      },
    });
  });
});

describe('formValuesOf', () => {
  it('fills the form from a test, and the form maps back to the same test', () => {
    const t: Schemas['Test'] = {
      id: 't1', project_id: 'p1', name: 'api', description: 'd', labels: { a: '1', b: 'x=y' }, thresholds: ['p(50) < 5ms'],
      spec: { url: 'http://h/', qps: 10 }, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
    };
    const v = formValuesOf(t);
    expect(v.labels).toBe('a=1\nb=x=y');
    expect(v.thresholds).toBe('p(50) < 5ms');
    expect(JSON.parse(v.spec)).toEqual({ url: 'http://h/', qps: 10 });
    expect(v.schedule).toBe('');
    expect(v.timezone).toBe('UTC');
    expect(toTestBody(v)).toEqual({
      body: { name: 'api', description: 'd', labels: t.labels, thresholds: t.thresholds, spec: t.spec, schedule: '', timezone: 'UTC' },
    });
  });

  it('keeps a stored schedule and zone, so a PUT sends them back', () => {
    const t: Schemas['Test'] = {
      id: 't1', project_id: 'p1', name: 'api', description: '', labels: {}, thresholds: [], spec: { url: 'http://h/' },
      schedule: '@hourly', timezone: 'Asia/Tokyo', next_run_at: '2026-01-01T01:00:00Z',
      created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
    };
    expect(toTestBody(formValuesOf(t))).toMatchObject({ body: { schedule: '@hourly', timezone: 'Asia/Tokyo' } });
    expect(toTestBody(formValuesOf({ ...t, baseline_last: 7 }))).toMatchObject({ body: { baseline_last: 7 } });
  });
});

describe('formErrorsOf', () => {
  it('puts the API field errors next to the fields they name', () => {
    expect(
      formErrorsOf([
        { field: 'name', message: 'minimum string length is 1' },
        { field: 'spec.qps', message: 'number must be at least 0' },
        { field: 'spec.durationx', message: 'unknown field' },
        { field: 'thresholds[1]', message: 'minimum string length is 1' },
        { field: 'labels.team', message: 'too long' },
        { field: 'project', message: 'is required' },
        { field: 'schedule', message: 'expected 5 fields, found 3' },
        { field: 'timezone', message: 'unknown time zone Mars/Base' },
        { field: 'baseline_last', message: '21: pool from 1 to 20 runs' },
      ]),
    ).toEqual({
      name: 'minimum string length is 1',
      spec: 'qps: number must be at least 0; durationx: unknown field',
      thresholds: 'line 2: minimum string length is 1',
      labels: 'team: too long',
      other: 'project: is required',
      schedule: 'expected 5 fields, found 3',
      timezone: 'unknown time zone Mars/Base',
      baselineLast: '21: pool from 1 to 20 runs',
    });
  });
  it('is empty without errors', () => {
    expect(formErrorsOf(undefined)).toEqual({});
  });
});

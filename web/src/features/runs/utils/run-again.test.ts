import type { Schemas } from '@/lib/api-client';
import { redactedPaths, runAgainBody, testFromRun } from './run-again';

const run = (over: Partial<Schemas['Run']> = {}) => ({
  project_id: 'p1',
  name: 'checkout',
  spec: { url: 'http://svc/?a=1', qps: 50, duration: '10s' },
  labels: { team: 'pay' },
  thresholds: ['p(99) < 50ms'],
  ...over,
});

test('redactedPaths finds the placeholder wherever the stored spec holds one', () => {
  expect(redactedPaths(run().spec)).toEqual([]);
  const spec = {
    url: 'http://REDACTED:REDACTED@svc/?token=REDACTED',
    headers: ['Accept: */*', 'Authorization: REDACTED'],
    requests: [{ url: 'http://svc/a', headers: ['X-Api-Key: REDACTED'] }],
    qps: 10,
  };
  expect(redactedPaths(spec)).toEqual(['url', 'headers.1', 'requests.0.headers.0']);
  expect(redactedPaths(null)).toEqual([]);
});

test('runAgainBody sends the spec inline with the name, labels and thresholds', () => {
  expect(runAgainBody(run())).toEqual({
    project: 'p1',
    name: 'checkout',
    spec: { url: 'http://svc/?a=1', qps: 50, duration: '10s' },
    labels: { team: 'pay' },
    thresholds: ['p(99) < 50ms'],
    source: 'ui',
  });
  // An unnamed run with no labels or thresholds leaves them out.
  expect(runAgainBody(run({ name: '', labels: {}, thresholds: [] }))).toEqual({
    project: 'p1',
    spec: { url: 'http://svc/?a=1', qps: 50, duration: '10s' },
    source: 'ui',
  });
});

test('testFromRun stores the spec under the name given', () => {
  expect(testFromRun(run(), 'nightly checkout')).toEqual({
    project: 'p1',
    name: 'nightly checkout',
    spec: { url: 'http://svc/?a=1', qps: 50, duration: '10s' },
    labels: { team: 'pay' },
    thresholds: ['p(99) < 50ms'],
  });
  expect(testFromRun(run({ labels: {}, thresholds: [] }), ' x ')).toEqual({ project: 'p1', name: ' x ', spec: run().spec });
});

import { formFieldOf, mapProblemFields } from './problem-fields';

describe('formFieldOf', () => {
  it.each([
    ['spec.url', 'url'],
    ['spec.qps', 'qps'],
    ['spec.connections', 'connections'],
    ['spec.duration', 'duration'],
    ['spec.headers[1]', 'headers'],
    ['spec.headers', 'headers'],
    ['spec.percentiles[0]', 'percentiles'],
    ['spec.ramp.over', 'ramp.over'],
    ['spec.ramp', 'ramp.to'],
    ['spec.grpc.ping_delay', 'grpc.ping_delay'],
    ['spec.grpc.method', 'grpc.method'],
    ['spec.grpc.streams', 'grpc.streams'],
    ['spec.grpc', 'grpc.mode'],
    ['spec.agents.count', 'agents.count'],
    ['spec.agents.selector.zone', 'agents.selector'],
    ['spec.agents', 'agents.count'],
    ['spec.until_stopped', 'length'],
    ['spec.urls[3]', 'urls'],
    ['spec.url_order', 'url_order'],
    ['spec.urls_from_run', 'urls_from_run'],
    ['spec.record_written_urls', 'record_written_urls'],
    ['spec.h3', 'h3'],
    ['spec.insecure', 'insecure'],
    ['spec.tls.ca_cert', 'tls.ca_cert'],
    ['spec.tls.client_cert', 'tls.client_cert'],
    ['spec.tls.client_key', 'tls.client_key'],
    ['spec.tls.server_name', 'tls.server_name'],
    ['spec.tls.alpn', 'tls.alpn'],
    ['spec.tls.min_version', 'tls.min_version'],
    ['spec.tls', 'tls.ca_cert'],
    ['spec.requests[1].weight', 'more'],
    ['spec.stages[0].qps', 'more'],
    ['spec.stages', 'more'],
    ['spec.payload_file', 'more'],
    ['spec.latency_header', 'more'],
    ['spec.bogus', 'more'],
    ['spec.labels.team', 'labels'],
    ['labels.team', 'labels'],
    ['labels', 'labels'],
    ['thresholds[3]', 'thresholds'],
    ['name', 'name'],
  ])('%s → %s', (path, field) => {
    expect(formFieldOf(path)).toBe(field);
  });

  it('puts name on the test name for POST /tests', () => {
    expect(formFieldOf('name', 'test')).toBe('test_name');
  });

  it('has no input for fields outside the form', () => {
    expect(formFieldOf('project')).toBeUndefined();
    expect(formFieldOf('spec')).toBeUndefined();
    expect(formFieldOf('spec.grpc.bogus')).toBeUndefined();
    expect(formFieldOf('spec.toString')).toBe('more');
    expect(formFieldOf('')).toBeUndefined();
  });
});

describe('mapProblemFields', () => {
  it('spreads errors over inputs and sends the rest to the summary', () => {
    const m = mapProblemFields(
      [
        { field: 'spec.qps', message: 'must be at least 0' },
        { field: 'spec.headers[1]', message: 'must be “Name: value”' },
        { field: 'labels.team', message: 'must be at most 256 characters' },
        { field: 'project', message: 'no such project' },
        { field: 'spec.url', message: 'scheme "ftp" is not supported' },
        { field: 'spec.url', message: 'must include a host' },
      ],
      'run',
      { spec: { headers: ['X-Ok: 1', 'broken'] } },
    );
    expect(m.fields).toEqual({
      qps: 'must be at least 0',
      headers: '“broken”: must be “Name: value”',
      labels: 'team: must be at most 256 characters',
      url: 'scheme "ftp" is not supported; must include a host',
    });
    expect(m.other).toEqual([{ field: 'project', message: 'no such project' }]);
  });

  it('names a list item by position when the sent body is unknown', () => {
    expect(mapProblemFields([{ field: 'thresholds[2]', message: 'is empty' }]).fields).toEqual({ thresholds: 'item 3: is empty' });
    expect(mapProblemFields([{ field: 'thresholds[0]', message: 'too long' }], 'run', { thresholds: ['x'] }).fields).toEqual({ thresholds: '“x”: too long' });
    const curves = mapProblemFields([{ field: 'spec.tls.curves[1]', message: 'is not allowed' }], 'run', { spec: { tls: { curves: ['P-256', 'x448'] as never } } });
    expect(curves.fields).toEqual({ 'tls.curves': '“x448”: is not allowed' });
  });

  it('maps the name of a test body to the test name', () => {
    expect(mapProblemFields([{ field: 'name', message: 'is required' }], 'test').fields).toEqual({ test_name: 'is required' });
  });
});

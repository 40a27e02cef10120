import { collapsedSectionFields, defaultFormState, fieldRow, formSpecFields, runFormFields, specPathFields } from './run-form-fields';

describe('the New run form field table', () => {
  it('names each input once', () => {
    const names = runFormFields.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(defaultFormState)).toEqual(names);
    expect(fieldRow['ramp.over'].label).toBe('Ramp over');
  });

  it('derives the defaults: Fortio 8 qps, 8 connections, 5 s, its percentiles', () => {
    expect(defaultFormState).toMatchObject({ qps: '8', connections: '8', length: 'duration', duration: '5s', percentiles: '50, 75, 90, 99, 99.9', jitter: false, url_order: '' });
  });

  it('derives the spec paths from the rows with a codec', () => {
    expect([...specPathFields]).toEqual(expect.arrayContaining(['url', 'qps', 'ramp.over', 'grpc.mode', 'agents.selector', 'labels', 'percentiles']));
    for (const own of ['name', 'length', 'thresholds', 'more', 'save_as_test', 'test_name']) expect(specPathFields.has(own)).toBe(false);
    expect([...formSpecFields]).toEqual(expect.arrayContaining(['ramp', 'grpc', 'tls', 'agents', 'until_stopped']));
    expect(formSpecFields.has('stages')).toBe(false);
  });

  it('derives the members of each collapsed section, which an error opens', () => {
    expect(collapsedSectionFields).toEqual({
      urls: ['urls', 'url_order', 'urls_from_run', 'record_written_urls'],
      pacing: ['pacing', 'jitter', 'uniform', 'no_catchup', 'abort_if_rate_not_held', 'burst', 'ramp.from', 'ramp.to', 'ramp.over'],
      requestMore: [
        'payload',
        'content_type',
        'timeout',
        'abort_on',
        'h2',
        'h3',
        'http10',
        'compression',
        'follow_redirects',
        'prefetch',
        'max_requests_per_connection',
        'unix_socket',
      ],
      tls: ['insecure', 'tls.ca_cert', 'tls.client_cert', 'tls.client_key', 'tls.server_name', 'tls.alpn', 'tls.min_version', 'tls.no_resumption', 'tls.curves'],
      more: ['more'],
    });
  });
});

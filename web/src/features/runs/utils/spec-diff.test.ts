import type { Schemas } from '@/lib/api-client';
import { protocolOf, specDiff, specWarnings } from './spec-diff';

const spec = (s: Partial<Schemas['RunSpec']>): Schemas['RunSpec'] => ({ url: 'http://echo:8080/?delay=5ms', qps: 100, connections: 4, duration: '3s', ...s });

describe('specDiff', () => {
  it('lists only the fields that differ, rate first, and warns about rates', () => {
    const diff = specDiff([spec({}), spec({ qps: 200 }), spec({ connections: 8 })]);
    expect(diff.map((d) => [d.key, d.values])).toEqual([
      ['qps', ['100 qps', '200 qps', '100 qps']],
      ['connections', ['4', '4', '8']],
    ]);
    expect(specWarnings(diff)).toHaveLength(1);
    expect(specWarnings(diff)[0]).toMatch(/different rates/);
  });

  it('finds nothing between equal specs and leaves out runs without one', () => {
    expect(specDiff([spec({}), undefined, spec({})])).toEqual([]);
  });

  it('names protocols and warns when they differ', () => {
    expect(protocolOf(spec({ url: 'https://x/', h2: true }))).toBe('HTTP/2 over TLS');
    expect(protocolOf(spec({ url: 'grpc://x:1' }))).toBe('gRPC');
    expect(protocolOf(spec({}))).toBe('HTTP/1.1');
    const diff = specDiff([spec({}), spec({ url: 'tcp://echo:9000' })]);
    expect(diff.map((d) => d.key)).toEqual(['protocol', 'url']);
    expect(specWarnings(diff)[0]).toMatch(/different protocols/);
  });
});

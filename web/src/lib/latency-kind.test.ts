import { describe, expect, it } from 'vitest';
import { summaryKind } from './latency-kind';

describe('summaryKind', () => {
  it('is response time for a paced run', () => {
    expect(summaryKind({ qps: 100 })).toBe('response');
    expect(summaryKind({ qps: 0, ramp: { from: 0, to: 50, over: '10s' } })).toBe('response');
    expect(summaryKind({ stages: [{ qps: 0, duration: '1s' }, { qps: 20, duration: '1s' }] })).toBe('response');
  });
  it('is service time for a closed-loop, unknown or imported run', () => {
    expect(summaryKind({ qps: 0 })).toBe('service');
    expect(summaryKind(undefined)).toBe('service');
    expect(summaryKind({ qps: 100 }, true)).toBe('service');
  });
});

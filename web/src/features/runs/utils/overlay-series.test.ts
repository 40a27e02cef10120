import type { Schemas } from '@/lib/api-client';
import { headlineLatency, overlayRows } from './overlay-series';

function iv(second: number, qps: number, responseP99: number, serviceP99: number): Schemas['Interval'] {
  const lat = (p99: number) => ({ p50_us: p99 / 2, p90_us: p99 * 0.9, p99_us: p99, max_us: p99 * 2 });
  return {
    second, count: qps, errors: 0, qps, response: lat(responseP99), service: lat(serviceP99), lag: lat(1),
    ret_codes: { '200': qps }, bytes_sent: 0, bytes_received: 0, snapshots: 2,
  };
}

describe('headlineLatency', () => {
  it('is response time for a paced run and service time otherwise', () => {
    expect(headlineLatency({ qps: 100 })).toBe('response');
    expect(headlineLatency({ qps: 0, ramp: { to: 50, over: '10s' } })).toBe('response');
    expect(headlineLatency({ qps: 0 })).toBe('service');
    expect(headlineLatency({})).toBe('service');
    expect(headlineLatency(undefined)).toBe('service');
  });
});

describe('overlayRows', () => {
  it('puts two runs on a common seconds axis, each with its own latency', () => {
    const a = [iv(0, 100, 5000, 4000), iv(1, 101, 5100, 4100), iv(2, 99, 5200, 4200)];
    const b = [iv(0, 300, 40000, 30000), iv(1, 301, 41000, 31000)];
    expect(overlayRows([{ intervals: a, latency: 'response' }, { intervals: b, latency: 'service' }])).toEqual([
      { second: 0, qps0: 100, p99_0: 5000, qps1: 300, p99_1: 30000 },
      { second: 1, qps0: 101, p99_0: 5100, qps1: 301, p99_1: 31000 },
      { second: 2, qps0: 99, p99_0: 5200 },
    ]);
  });

  it('sorts seconds and keeps gaps as missing rows rather than zeros', () => {
    const a = [iv(3, 10, 1, 1), iv(0, 10, 1, 1)];
    const b = [iv(1, 20, 2, 2)];
    const rows = overlayRows([{ intervals: a, latency: 'response' }, { intervals: b, latency: 'response' }]);
    expect(rows.map((r) => r.second)).toEqual([0, 1, 3]);
    expect(rows[1]).toEqual({ second: 1, qps1: 20, p99_1: 2 });
  });

  it('keeps the later figures of a repeated second', () => {
    const rows = overlayRows([{ intervals: [iv(0, 10, 1, 1), iv(0, 12, 3, 3)], latency: 'response' }]);
    expect(rows).toEqual([{ second: 0, qps0: 12, p99_0: 3 }]);
  });

  it('is empty without intervals', () => {
    expect(overlayRows([{ intervals: [], latency: 'response' }, { intervals: [], latency: 'service' }])).toEqual([]);
  });
});

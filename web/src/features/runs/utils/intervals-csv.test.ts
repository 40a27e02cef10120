import type { Interval } from './intervals';
import { intervalsCsv } from './intervals-csv';

const lat = (p50: number) => ({ p50_us: p50, p90_us: p50 * 2, p99_us: p50 * 3, max_us: p50 * 4 });
const second = (s: number, codes: Record<string, number>): Interval => ({
  second: s, count: 10, errors: codes['503'] ?? 0, qps: 10.5,
  response: lat(100), service: lat(80), lag: lat(5),
  ret_codes: codes, bytes_sent: 1000, bytes_received: 2000, snapshots: 2, generator_limited: s === 1,
});

test('a row per second with every latency and a column per code any second holds', () => {
  const csv = intervalsCsv([second(0, { '200': 10 }), second(1, { '200': 8, '503': 1, '-1': 1 })]);
  const lines = csv.split('\r\n');
  expect(lines[0]).toBe(
    'second,count,errors,qps,' +
      'response_p50_us,response_p90_us,response_p99_us,response_max_us,' +
      'service_p50_us,service_p90_us,service_p99_us,service_max_us,' +
      'lag_p50_us,lag_p90_us,lag_p99_us,lag_max_us,' +
      'bytes_sent,bytes_received,generator_limited,code_-1,code_200,code_503',
  );
  expect(lines[1]).toBe('0,10,0,10.5,100,200,300,400,80,160,240,320,5,10,15,20,1000,2000,0,0,10,0');
  expect(lines[2]).toBe('1,10,1,10.5,100,200,300,400,80,160,240,320,5,10,15,20,1000,2000,1,1,8,1');
  expect(lines[3]).toBe('');
  expect(lines).toHaveLength(4);
});

test('named codes after numbers, and a code needing quotes is quoted', () => {
  const csv = intervalsCsv([second(0, { SERVING: 3, 'a,b': 1, '0': 2 })]);
  expect(csv.split('\r\n')[0]!.split(',').slice(19)).toEqual(['code_0', 'code_SERVING', '"code_a', 'b"']);
  expect(intervalsCsv([])).toBe(
    'second,count,errors,qps,response_p50_us,response_p90_us,response_p99_us,response_max_us,service_p50_us,service_p90_us,service_p99_us,service_max_us,lag_p50_us,lag_p90_us,lag_p99_us,lag_max_us,bytes_sent,bytes_received,generator_limited\r\n',
  );
});

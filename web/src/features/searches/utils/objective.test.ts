import { buildObjective, checkNumbers } from './objective';

test('buildObjective joins clauses with their units', () => {
  expect(
    buildObjective([
      { metric: 'p(99)', op: '<', value: '50' },
      { metric: 'error_rate', op: '<=', value: '0.1' },
      { metric: 'service.p(99)', op: '<', value: ' 2.5 ' },
    ]),
  ).toEqual({ objective: 'p(99) < 50ms and error_rate <= 0.1% and service.p(99) < 2.5ms', errors: {} });
});

test('buildObjective names the clauses at fault', () => {
  const r = buildObjective([
    { metric: 'p(99)', op: '<', value: '0' },
    { metric: 'error_rate', op: '<', value: '0' },
    { metric: 'error_rate', op: '<', value: '101' },
    { metric: 'max', op: '<', value: 'soon' },
  ]);
  expect(r.objective).toBe('error_rate < 0%');
  expect(r.errors).toEqual({ 0: 'A number of milliseconds above 0', 2: 'At most 100 %', 3: 'A number of milliseconds above 0' });
});

test('checkNumbers', () => {
  expect(checkNumbers({ minQps: '10', maxQps: '100', resolutionPct: '2' })).toEqual({});
  expect(checkNumbers({ minQps: '0', maxQps: '', resolutionPct: '100' })).toEqual({
    minQps: 'A rate above 0',
    maxQps: 'A rate above 0',
    resolutionPct: 'A percentage between 0 and 100',
  });
  expect(checkNumbers({ minQps: '200', maxQps: '100', resolutionPct: '5' })).toEqual({ maxQps: 'At least the min qps' });
});

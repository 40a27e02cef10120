import { formatThresholdValue, thresholdCounts, thresholdRows, type ThresholdResult } from './thresholds';

const results: ThresholdResult[] = [
  { expression: 'p(99) < 250ms', metric: 'response.p(99)', unit: 'us', observed: 23_400, limit: 250_000, pass: true },
  { expression: 'error_rate < 0.1%', metric: 'error_rate', unit: 'ratio', observed: 0.02, limit: 0.001, pass: false },
  { expression: 'qps >= 495', metric: 'qps', unit: '', observed: 499.7, limit: 495, pass: true },
  { expression: 'p(99) < baseline * 1.1', metric: 'response.p(99)', unit: 'us', observed: 0, limit: 0, pass: false, error: 'no baseline: the run has no test' },
];

describe('threshold results', () => {
  it('formats values in their unit', () => {
    expect(formatThresholdValue(23_400, 'us')).toBe('23.4 ms');
    expect(formatThresholdValue(0.02, 'ratio')).toBe('2%');
    expect(formatThresholdValue(499.7, '')).toBe('500');
    expect(formatThresholdValue(12_345, '')).toBe('12.3k');
  });

  it('rows carry the outcome, and no values for a threshold that could not be evaluated', () => {
    const rows = thresholdRows(results.map((r) => r.expression), results);
    expect(rows.map((r) => ('pending' in r ? 'pending' : r.outcome))).toEqual(['pass', 'fail', 'pass', 'error']);
    expect(rows[0]).toMatchObject({ observed: '23.4 ms', limit: '250 ms', metric: 'response.p(99)' });
    expect(rows[1]).toMatchObject({ observed: '2%', limit: '0.1%' });
    expect(rows[3]).toMatchObject({ observed: '–', limit: '–', error: 'no baseline: the run has no test' });
  });

  it('confidence forms carry their interval, and inconclusive ones the note', () => {
    const conf: ThresholdResult[] = [
      {
        expression: 'p(99) < baseline * 1.1 @ 95%', metric: 'response.p(99)', unit: 'us', observed: 21_000, limit: 22_000, pass: false,
        inconclusive: true, note: 'run about 3.2× longer to tell',
        estimate: { confidence: 95, ratio: 1.05, ratio_low: 0.98, ratio_high: 1.12, margin_low: -2000, margin_high: 600, longer: 3.2, seconds: 10 },
      },
      {
        expression: 'p(50) < baseline @ 95%', metric: 'response.p(50)', unit: 'us', observed: 5600, limit: 5000, pass: false,
        estimate: { confidence: 95, ratio: 1.12, ratio_low: 1.07, ratio_high: 1.17, margin_low: 350, margin_high: 850, longer: 1, seconds: 10, spread: 0.021, spread_runs: 5 },
      },
      { expression: 'qps >= baseline @ 95%', metric: 'qps', unit: '', observed: 0, limit: 0, pass: false, inconclusive: true, note: 'too few measured seconds' },
    ];
    const rows = thresholdRows(conf.map((r) => r.expression), conf);
    expect(rows.map((r) => ('pending' in r ? 'pending' : [r.outcome, r.interval]))).toEqual([
      ['inconclusive', '+5.0 % (95 % CI −2.0 % to +12.0 %); run about 3.2× longer to tell'],
      ['fail', '+12.0 % (95 % CI +7.0 % to +17.0 %); runs differ by 2.1 % from run to run (5 pooled runs)'],
      ['inconclusive', 'too few measured seconds'],
    ]);
    expect(thresholdCounts(conf)).toBe('0 passed, 1 failed, 2 inconclusive');
  });

  it('rows are pending before the run is judged', () => {
    expect(thresholdRows(['p(99) < 1s', 'count > 10'], undefined)).toEqual([
      { expression: 'p(99) < 1s', pending: true },
      { expression: 'count > 10', pending: true },
    ]);
  });

  it('counts passes, failures and errors', () => {
    expect(thresholdCounts(results)).toBe('2 passed, 1 failed, 1 not evaluated');
    expect(thresholdCounts(results.slice(0, 1))).toBe('1 passed');
  });
});

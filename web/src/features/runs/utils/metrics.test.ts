import type { Schemas } from '@/lib/api-client';
import { compareCells, deltaTone, latencyMetrics, tableMetrics } from './metrics';

const fast: Schemas['ComparedRun'] = {
  id: 'r1', name: 'fast', status: 'completed', source: 'ui', labels: { env: 'a' },
  count: 600, errors: 0, qps: 100, min_us: 5144, avg_us: 6454, p50_us: 6027, p75_us: 7000, p90_us: 8151, p99_us: 10543, p999_us: 20000, max_us: 45311,
};
const slow: Schemas['ComparedRun'] = {
  id: 'r2', name: 'slow', status: 'completed', source: 'ui', labels: {},
  count: 1800, errors: 3, qps: 300, min_us: 2140, avg_us: 10459, p50_us: 3031, p75_us: 4827, p90_us: 40895, p99_us: 42911, p999_us: 44895, max_us: 46399,
};
const pending: Schemas['ComparedRun'] = { id: 'r3', name: 'pending', status: 'running', source: 'ui', labels: {} };

describe('deltaTone', () => {
  it('calls lower latency good and higher bad', () => {
    expect(deltaTone(100, 80, 'lower')).toBe('good');
    expect(deltaTone(100, 120, 'lower')).toBe('bad');
  });
  it('calls higher qps good and lower bad', () => {
    expect(deltaTone(100, 150, 'higher')).toBe('good');
    expect(deltaTone(100, 50, 'higher')).toBe('bad');
  });
  it('calls more errors bad, even from zero', () => {
    expect(deltaTone(0, 3, 'lower')).toBe('bad');
    expect(deltaTone(3, 0, 'lower')).toBe('good');
  });
  it('is neutral for equal figures, counts and missing figures', () => {
    expect(deltaTone(5, 5, 'lower')).toBe('neutral');
    expect(deltaTone(5, 9, 'none')).toBe('neutral');
    expect(deltaTone(undefined, 9, 'lower')).toBe('neutral');
    expect(deltaTone(5, Number.NaN, 'higher')).toBe('neutral');
  });
});

describe('compareCells', () => {
  const rows = compareCells([fast, slow, pending]);
  const row = (label: string) => rows.find((r) => r.metric.label === label)!;

  it('has the rows count, qps, errors, min, p50, avg, p75, p90, p99, p99.9, max in order', () => {
    expect(rows.map((r) => r.metric.label)).toEqual(['Count', 'QPS', 'Errors', 'min', 'p50', 'avg', 'p75', 'p90', 'p99', 'p99.9', 'max']);
  });

  it('gives the first run figures without a delta', () => {
    expect(row('p99').cells[0]).toEqual({ text: '10.5 ms', tone: 'neutral' });
  });

  it('gives later runs the delta against the first, coloured by the rule', () => {
    expect(row('p99').cells[1]).toEqual({ text: '42.9 ms', delta: '+307%', tone: 'bad' });
    expect(row('p50').cells[1]).toEqual({ text: '3.03 ms', delta: '−49.7%', tone: 'good' });
    expect(row('QPS').cells[1]).toEqual({ text: '300', delta: '+200%', tone: 'good' });
    expect(row('Errors').cells[1]).toEqual({ text: '3', delta: '+∞', tone: 'bad' });
    expect(row('Count').cells[1]).toEqual({ text: '1,800', delta: '+200%', tone: 'neutral' });
  });

  it('gives a run without a result no figures', () => {
    expect(row('Count').cells[2]).toEqual({ text: '–', tone: 'neutral' });
    expect(row('max').cells[2]).toEqual({ text: '–', tone: 'neutral' });
  });

  it('gives no deltas when the first run has no result', () => {
    const cells = compareCells([pending, fast]).find((r) => r.metric.label === 'p99')!.cells;
    expect(cells[1]).toEqual({ text: '10.5 ms', tone: 'neutral' });
  });

  it('covers every latency metric', () => {
    expect(tableMetrics.filter((m) => m.key.endsWith('_us'))).toHaveLength(latencyMetrics.length);
  });
});

describe('latencyMetrics', () => {
  it('keeps Fortio order of the figures', () => {
    expect(latencyMetrics.map((m) => m.label)).toEqual(['min', 'p50', 'avg', 'p75', 'p90', 'p99', 'p99.9', 'max']);
  });
});

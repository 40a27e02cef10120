import type { Schemas } from '@/lib/api-client';
import { changeText, previousRow, timeTick, trendChanges, trendDomain, trendLimitLines, trendMark, trendRows } from './trend';

type Figures = Pick<Schemas['TrendPoint'], 'count' | 'errors' | 'qps' | 'p50_us' | 'p90_us' | 'p99_us'>;

function point(id: string, at: { started?: string; created: string }, figures?: Figures): Schemas['TrendPoint'] {
  const errors = figures?.errors ?? 0;
  const count = figures?.count ?? 0;
  return {
    run_id: id, name: `run ${id}`, status: figures ? 'completed' : 'running', created_at: at.created, started_at: at.started,
    ...figures, errors, error_rate: count ? errors / count : 0, degraded: false,
  };
}

describe('trendRows', () => {
  // The API orders by creation; b was created before c but started after it.
  const points = [
    point('a', { created: '2026-05-01T10:00:00Z', started: '2026-05-01T10:00:02Z' }, { count: 100, errors: 0, qps: 10, p50_us: 1000, p90_us: 3000, p99_us: 5000 }),
    point('b', { created: '2026-05-02T10:00:00Z', started: '2026-05-03T11:00:00Z' }, { count: 200, errors: 1, qps: 20, p50_us: 1100, p99_us: 6000 }),
    point('c', { created: '2026-05-03T10:00:00Z', started: '2026-05-03T10:00:05Z' }, { count: 300, errors: 2, qps: 30, p50_us: 900, p99_us: 4000 }),
    point('never', { created: '2026-05-03T12:00:00Z' }, { count: 50, errors: 50 }),
    point('live', { created: '2026-05-04T10:00:00Z', started: '2026-05-04T10:00:01Z' }),
  ];

  it('orders the runs by start time, oldest first', () => {
    expect(trendRows(points).map((r) => r.id)).toEqual(['a', 'c', 'b', 'never']);
  });

  it('skips runs without figures', () => {
    expect(trendRows(points).some((r) => r.id === 'live')).toBe(false);
  });

  it('carries the figures and falls back to the creation time', () => {
    const rows = trendRows(points);
    expect(rows[0]).toEqual({ t: Date.parse('2026-05-01T10:00:02Z'), id: 'a', name: 'run a', count: 100, errors: 0, qps: 10, p50: 1000, p99: 5000, mark: 'none', degraded: false });
    expect(rows[3]).toEqual({ t: Date.parse('2026-05-03T12:00:00Z'), id: 'never', name: 'run never', count: 50, errors: 50, qps: undefined, p50: undefined, p99: undefined, mark: 'none', degraded: false });
  });

  it('is empty when no run has figures', () => {
    expect(trendRows([points[4]!])).toEqual([]);
    expect(trendRows([])).toEqual([]);
  });
});

describe('trendDomain', () => {
  it('spans the runs, or a minute around a single one', () => {
    const rows = trendRows([
      point('a', { created: '2026-05-01T10:00:00Z' }, { count: 1, errors: 0 }),
      point('b', { created: '2026-05-01T11:00:00Z' }, { count: 1, errors: 0 }),
    ]);
    expect(trendDomain(rows)).toEqual([Date.parse('2026-05-01T10:00:00Z'), Date.parse('2026-05-01T11:00:00Z')]);
    expect(trendDomain(rows.slice(0, 1))).toEqual([Date.parse('2026-05-01T09:59:00Z'), Date.parse('2026-05-01T10:01:00Z')]);
  });
});

describe('timeTick', () => {
  const t = Date.parse('2026-05-01T10:20:30Z');
  it('shows seconds within an hour and the date beyond a day', () => {
    expect(timeTick(10 * 60_000)(t)).toMatch(/\d{2}:\d{2}:\d{2}/);
    expect(timeTick(5 * 3_600_000)(t)).not.toMatch(/\d{2}:\d{2}:\d{2}/);
    expect(timeTick(10 * 86_400_000)(t)).not.toMatch(/:/);
  });
});

describe('trendChanges', () => {
  const rows = [
    { t: 2000, id: 'b', name: 'run b', count: 1, errors: 0, mark: 'none' as const, degraded: false },
    { t: 1000, id: 'a', name: 'run a', count: 1, errors: 0, mark: 'none' as const, degraded: false },
  ];
  const change = (run_id: string, metric: 'p50' | 'p90' | 'p99', before: number, after: number) =>
    ({ run_id, metric, before_us: before, after_us: after, change: after / before - 1 });

  it('words a change as its marker says it', () => {
    expect(changeText({ metric: 'p99', change: 0.18 })).toBe('p99 +18 % from this run');
    expect(changeText({ metric: 'p50', change: -0.204 })).toBe('p50 −20 % from this run');
  });

  it('places changes on the charted runs in time order, leaving out the others', () => {
    const got = trendChanges([change('b', 'p99', 20_000, 23_600), change('gone', 'p99', 1, 2), change('a', 'p50', 5000, 4000)], rows);
    expect(got.map((c) => [c.id, c.t, c.metric, c.text])).toEqual([
      ['a', 1000, 'p50', 'p50 −20 % from this run'],
      ['b', 2000, 'p99', 'p99 +18 % from this run'],
    ]);
    expect(got[1]).toMatchObject({ name: 'run b', before: 20_000, after: 23_600 });
  });
});

describe('trendMark', () => {
  it('marks each verdict, failed before degraded and degraded before the rest', () => {
    expect(trendMark('pass', false)).toBe('passed');
    expect(trendMark('fail', false)).toBe('failed');
    expect(trendMark('inconclusive', false)).toBe('inconclusive');
    expect(trendMark('error', false)).toBe('error');
    expect(trendMark(undefined, false)).toBe('none');
    expect(trendMark('fail', true)).toBe('failed');
    expect(trendMark('pass', true)).toBe('degraded');
    expect(trendMark('error', true)).toBe('degraded');
    expect(trendMark(undefined, true)).toBe('degraded');
  });

  it('carries the mark and the degraded flag onto the rows', () => {
    const p = { ...point('d', { created: '2026-05-01T10:00:00Z' }, { count: 10, errors: 0, p99_us: 5 }), verdict: 'error' as const, degraded: true };
    expect(trendRows([p])[0]).toMatchObject({ id: 'd', mark: 'degraded', degraded: true });
  });
});

describe('previousRow', () => {
  const row = (id: string, t: number) => ({ t, id, name: id, count: 1, errors: 0, mark: 'passed' as const, degraded: false });
  const rows = [row('a', 1), row('b', 2), row('c', 3)];

  it('is the run before on the trend, none before the first or for a run not charted', () => {
    expect(previousRow(rows, 'c')?.id).toBe('b');
    expect(previousRow(rows, 'b')?.id).toBe('a');
    expect(previousRow(rows, 'a')).toBeUndefined();
    expect(previousRow(rows, 'gone')).toBeUndefined();
  });
});

describe('trendLimitLines', () => {
  it('draws the limits on charted metrics once each, labelled with the threshold', () => {
    const got = trendLimitLines([
      { threshold: 'p(99) < 50ms', metric: 'p99', op: '<', value: 50_000 },
      { threshold: 'p(90) < 20ms', metric: 'p90', op: '<', value: 20_000 },
      { threshold: 'p(99) <= 50ms', metric: 'p99', op: '<=', value: 50_000 },
      { threshold: 'qps >= 45', metric: 'qps', op: '>=', value: 45 },
      { threshold: 'p(50) < 5ms', metric: 'p50', op: '<', value: 5000 },
    ]);
    expect(got).toEqual([
      { metric: 'p99', value: 50_000, label: 'threshold p(99) < 50ms' },
      { metric: 'qps', value: 45, label: 'threshold qps >= 45' },
      { metric: 'p50', value: 5000, label: 'threshold p(50) < 5ms' },
    ]);
  });
});

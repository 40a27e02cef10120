import type { Schemas } from '@/lib/api-client';
import { timeTick, trendDomain, trendRows } from './trend';

function run(id: string, at: { started?: string; created: string }, summary?: Schemas['RunSummary']): Schemas['Run'] {
  return {
    id, project_id: 'p', name: `run ${id}`, status: summary ? 'completed' : 'running', source: 'ui', spec: { url: 'http://h/' },
    thresholds: [], labels: {}, target: 'http://h/', qps_requested: 10, created_at: at.created, updated_at: at.created,
    started_at: at.started, shard_count: 1, degraded: false, summary,
  };
}

describe('trendRows', () => {
  const runs = [
    run('c', { created: '2026-05-03T10:00:00Z', started: '2026-05-03T10:00:05Z' }, { count: 300, errors: 2, qps: 30, p50_us: 900, p99_us: 4000 }),
    run('a', { created: '2026-05-01T10:00:00Z', started: '2026-05-01T10:00:02Z' }, { count: 100, errors: 0, qps: 10, p50_us: 1000, p99_us: 5000 }),
    run('live', { created: '2026-05-04T10:00:00Z', started: '2026-05-04T10:00:01Z' }),
    run('b', { created: '2026-05-02T10:00:00Z' }, { count: 200, errors: 1, qps: 20, p50_us: 1100, p99_us: 6000 }),
  ];

  it('orders the runs by start time, oldest first', () => {
    expect(trendRows(runs).map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });

  it('skips runs without a summary', () => {
    expect(trendRows(runs).some((r) => r.id === 'live')).toBe(false);
  });

  it('carries the figures and falls back to the creation time', () => {
    const rows = trendRows(runs);
    expect(rows[0]).toEqual({ t: Date.parse('2026-05-01T10:00:02Z'), id: 'a', name: 'run a', count: 100, errors: 0, qps: 10, p50: 1000, p99: 5000 });
    expect(rows[1]!.t).toBe(Date.parse('2026-05-02T10:00:00Z'));
  });

  it('is empty when no run has finished', () => {
    expect(trendRows([runs[2]!])).toEqual([]);
  });
});

describe('trendDomain', () => {
  it('spans the runs, or a minute around a single one', () => {
    const rows = trendRows([
      run('a', { created: '2026-05-01T10:00:00Z' }, { count: 1, errors: 0 }),
      run('b', { created: '2026-05-01T11:00:00Z' }, { count: 1, errors: 0 }),
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

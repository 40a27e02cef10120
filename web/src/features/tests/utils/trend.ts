import type { Schemas } from '@/lib/api-client';
import { runName } from '@/lib/run-name';

/** One run of a test on the trend: x = when it started (ms), latencies in µs. */
export type TrendRow = {
  t: number;
  id: string;
  name: string;
  count: number;
  errors: number;
  qps?: number;
  p50?: number;
  p99?: number;
  /** mark is the run's verdict as its marker shows it. */
  mark: TrendMark;
  degraded: boolean;
};

/**
 * TrendMark is a run's verdict as the trend marks it: failed before degraded
 * (a run that lost a shard and still failed its thresholds failed), degraded
 * before the rest (its figures lack a shard's part), `error` for a run that
 * could not be judged, `none` for a run without a verdict.
 */
export type TrendMark = 'passed' | 'failed' | 'inconclusive' | 'degraded' | 'error' | 'none';

/** trendMark is the marker of a run with verdict v that lost a shard when degraded. */
export function trendMark(v: Schemas['TrendPoint']['verdict'], degraded: boolean): TrendMark {
  if (v === 'fail') return 'failed';
  if (degraded) return 'degraded';
  if (v === 'pass') return 'passed';
  if (v === 'inconclusive') return 'inconclusive';
  if (v === 'error') return 'error';
  return 'none';
}

/** markLabel words a marker for its legend and menu. */
export const markLabel: Record<TrendMark, string> = {
  passed: 'passed', failed: 'failed', inconclusive: 'inconclusive', degraded: 'degraded (lost a shard)', error: 'not judged (error)', none: 'no verdict',
};

/**
 * trendRows places a test's runs from its trend in time order, oldest first.
 * A run without figures (not finished, or lost) has nothing to plot and is
 * skipped; a run that never started is placed at its creation.
 */
export function trendRows(points: Schemas['TrendPoint'][]): TrendRow[] {
  const out: TrendRow[] = [];
  for (const p of points) {
    if (p.count === undefined) continue;
    const t = Date.parse(p.started_at ?? p.created_at);
    if (Number.isNaN(t)) continue;
    out.push({ t, id: p.run_id, name: runName({ id: p.run_id, name: p.name, created_at: p.created_at }), count: p.count, errors: p.errors, qps: p.qps, p50: p.p50_us, p99: p.p99_us,
      mark: trendMark(p.verdict, p.degraded), degraded: p.degraded });
  }
  return out.sort((a, b) => a.t - b.t || a.id.localeCompare(b.id));
}

/** trendDomain is the time axis's range, widened by a minute each side when it is a single instant. */
export function trendDomain(rows: TrendRow[]): [number, number] {
  if (rows.length === 0) return [0, 1];
  const lo = rows[0]!.t;
  const hi = rows[rows.length - 1]!.t;
  return lo === hi ? [lo - 60_000, hi + 60_000] : [lo, hi];
}

/** timeTick labels the time axis as finely as its span needs: seconds, minutes or days. */
export function timeTick(spanMs: number): (t: number) => string {
  const hour = 3_600_000;
  if (spanMs <= hour) return (t) => new Date(t).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  if (spanMs <= 24 * hour) return (t) => new Date(t).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return (t) => new Date(t).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

/** A change of a latency's level on the trend, placed on its run. */
export type TrendChange = {
  t: number;
  id: string;
  name: string;
  metric: Schemas['ChangePoint']['metric'];
  before: number;
  after: number;
  /** text is the marker's tooltip: "p99 +18 % from this run". */
  text: string;
};

/** changeText words a change point as its marker says it: "p99 +18 % from this run". */
export function changeText(c: Pick<Schemas['ChangePoint'], 'metric' | 'change'>): string {
  const pct = Math.round(Math.abs(c.change) * 100);
  return `${c.metric} ${c.change < 0 ? '−' : '+'}${pct} % from this run`;
}

/**
 * trendChanges places the trend's change points on the charted runs, in
 * time order; a change on a run that is not charted is left out.
 */
export function trendChanges(changes: Schemas['ChangePoint'][], rows: TrendRow[]): TrendChange[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: TrendChange[] = [];
  for (const c of changes) {
    const r = byId.get(c.run_id);
    if (!r) continue;
    out.push({ t: r.t, id: r.id, name: r.name, metric: c.metric, before: c.before_us, after: c.after_us, text: changeText(c) });
  }
  return out.sort((a, b) => a.t - b.t || a.metric.localeCompare(b.metric));
}

/** previousRow is the charted run before the one with id, the one it compares with; undefined for the first. */
export function previousRow(rows: TrendRow[], id: string): TrendRow | undefined {
  const i = rows.findIndex((r) => r.id === id);
  return i > 0 ? rows[i - 1] : undefined;
}

/**
 * compareWithHref is the compare page of a run beside the one before it, the
 * earlier first: the compare route reads run ids from `ids`
 * (src/app/routes/compare.tsx).
 */
export function compareWithHref(previousId: string, id: string): string {
  return `/compare?ids=${encodeURIComponent(previousId)},${encodeURIComponent(id)}`;
}

/** A threshold's fixed limit drawn on a chart of the trend. */
export type TrendLimitLine = { metric: 'p50' | 'p99' | 'qps'; value: number; label: string };

/**
 * trendLimitLines picks the limits the trend draws: those on the charted
 * metrics (p50, p99 and qps; p90 is not charted), once per metric and value.
 */
export function trendLimitLines(limits: Schemas['TrendLimit'][]): TrendLimitLine[] {
  const out: TrendLimitLine[] = [];
  const seen = new Set<string>();
  for (const l of limits) {
    if (l.metric === 'p90') continue;
    const key = `${l.metric}:${l.value}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ metric: l.metric, value: l.value, label: `threshold ${l.threshold}` });
  }
  return out;
}

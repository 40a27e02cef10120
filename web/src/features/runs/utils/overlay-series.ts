import type { Schemas } from '@/lib/api-client';

type Interval = Schemas['Interval'];

/**
 * headlineLatency is the latency a run is judged by: response time when it
 * paced a target rate (open loop), service time otherwise (docs/architecture.md §4).
 */
export function headlineLatency(spec: Pick<Schemas['RunSpec'], 'qps' | 'ramp'> | undefined): 'response' | 'service' {
  const peak = Math.max(spec?.qps ?? 0, spec?.ramp?.to ?? 0);
  return peak > 0 ? 'response' : 'service';
}

/** A merged second: qps and p99 (µs) of run i under `qps<i>` and `p99_<i>`, absent where run i has no such second. */
export type SeriesRow = { second: number } & Partial<Record<`qps${number}` | `p99_${number}`, number>>;

/**
 * overlayRows lines up runs' per-second series on one x axis, seconds
 * since each run's start, so their lines overlay. A second that appears
 * twice in one series keeps its later figures.
 */
export function overlayRows(series: { intervals: Interval[]; latency: 'response' | 'service' }[]): SeriesRow[] {
  const rows = new Map<number, Record<string, number>>();
  series.forEach(({ intervals, latency }, i) => {
    for (const iv of intervals) {
      let row = rows.get(iv.second);
      if (!row) rows.set(iv.second, (row = { second: iv.second }));
      row[`qps${i}`] = iv.qps;
      row[`p99_${i}`] = iv[latency].p99_us;
    }
  });
  return [...rows.values()].sort((a, b) => a.second! - b.second!) as SeriesRow[];
}

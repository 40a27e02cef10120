/** A chart row: an x value and numeric series, a series possibly absent in a row. */
export type Row = { t: number } & Record<string, number | undefined>;

/**
 * maxChartPoints is the most rows a time-series chart draws: about one per
 * 2 px of a chart half the page wide, as Grafana draws about one per pixel.
 * 300 rather than 600 opened the per-agent view of an hour on 20 agents 16 %
 * sooner (bench/results/web-big-run-2026-11-28-300-points.md).
 */
export const maxChartPoints = 300;

/**
 * downsample shrinks rows (sorted by t) to at most maxPoints rows for
 * drawing, keeping each series' envelope: the rows are cut into
 * maxPoints/2 buckets of consecutive rows, and each bucket becomes two
 * rows, at its first and last t, holding every series' minimum and maximum
 * in the order they occurred. Peaks and dips survive, which averaging would
 * flatten. Rows already few enough are returned as they are.
 */
export function downsample<R extends Row>(rows: readonly R[], keys: readonly string[], maxPoints = maxChartPoints): R[] {
  if (rows.length <= maxPoints) return rows as R[];
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  const size = Math.ceil(rows.length / buckets);
  const out: R[] = [];
  for (let start = 0; start < rows.length; start += size) {
    const end = Math.min(rows.length, start + size);
    if (end - start === 1) {
      out.push(rows[start]!);
      continue;
    }
    const first = { t: rows[start]!.t } as R;
    const second = { t: rows[end - 1]!.t } as R;
    for (const k of keys) {
      let min = Infinity;
      let max = -Infinity;
      let minAt = -1;
      let maxAt = -1;
      for (let i = start; i < end; i++) {
        const v = rows[i]![k];
        if (v === undefined || !Number.isFinite(v)) continue;
        if (v < min) [min, minAt] = [v, i];
        if (v > max) [max, maxAt] = [v, i];
      }
      if (minAt < 0) continue; // the series has no value in this bucket: leave a gap
      const [a, b] = minAt <= maxAt ? [min, max] : [max, min];
      (first as Row)[k] = a;
      (second as Row)[k] = b;
    }
    out.push(first, second);
  }
  return out;
}

import type { Schemas } from '@/lib/api-client';
import { formatDuration } from '@/lib/format';

type ComparedRun = Schemas['ComparedRun'];
type PercentileChange = Schemas['PercentileChange'];

/** The percentiles the summary reports the largest change of, with their figure in a compared run. */
export const summaryPercentiles = [
  { p: 99, key: 'p99_us', label: 'p99' },
  { p: 99.9, key: 'p999_us', label: 'p99.9' },
] as const;

/** signedPercent shows a ratio as a signed change: 1.12 → "+12 %", 0.97 → "−3 %". */
export function signedPercent(ratio: number): string {
  const d = (ratio - 1) * 100;
  const abs = Math.abs(d);
  const text = abs >= 10 ? abs.toFixed(0) : abs.toFixed(1);
  if (Number(text) === 0) return '±0 %';
  return `${d > 0 ? '+' : '−'}${text} %`;
}

/** changeWords reads a latency ratio as words that do not rely on colour: "+12 % slower", "−4.5 % faster", "±0 % same". */
export function changeWords(ratio: number): string {
  const text = signedPercent(ratio);
  if (text === '±0 %') return 'no change';
  return `${text} ${ratio > 1 ? 'slower' : 'faster'}`;
}

/** intervalText shows a ratio interval as a band of changes: "−3.0 % … +7.0 %". */
export function intervalText(low: number, high: number): string {
  return `${signedPercent(low)} … ${signedPercent(high)}`;
}

/** verdictWords are the verdict's words as the page shows them. */
export const verdictWords: Record<PercentileChange['verdict'], string> = {
  regression: 'regression',
  improvement: 'improvement',
  inconclusive: 'inconclusive',
  no_change: 'no change',
};

/** withinNoise tells a change whose interval holds 0: the runs cannot tell it from noise. */
export function withinNoise(c: PercentileChange): boolean {
  return c.ratio_low <= 1 && c.ratio_high >= 1;
}

/** The largest change of one percentile against the reference. */
export type LargestChange = {
  label: string;
  /** Index of the run in the comparison. */
  index: number;
  referenceUs: number;
  runUs: number;
  ratio: number;
  /** The run's interval and verdict at this percentile, when the API estimated them. */
  estimate?: PercentileChange;
};

/**
 * largestChanges finds, for p99 and p99.9, the run whose figure moved
 * furthest from the reference (the first run), by the size of the ratio
 * either way (2× slower and 2× faster weigh the same). A percentile no run
 * can be compared at is left out.
 */
export function largestChanges(runs: ComparedRun[]): LargestChange[] {
  const ref = runs[0];
  const out: LargestChange[] = [];
  for (const { p, key, label } of summaryPercentiles) {
    const base = ref?.[key];
    if (base === undefined || base <= 0) continue;
    let best: LargestChange | undefined;
    runs.forEach((r, index) => {
      const v = r[key];
      if (index === 0 || v === undefined) return;
      const ratio = v / base;
      if (best === undefined || Math.abs(Math.log(ratio)) > Math.abs(Math.log(best.ratio))) {
        best = { label, index, referenceUs: base, runUs: v, ratio, estimate: r.change?.estimates.find((e) => e.percentile === p) };
      }
    });
    if (best) out.push(best);
  }
  return out;
}

/** absoluteChange shows the difference of two latencies with its sign: "+1.2 ms", "−300 µs". */
export function absoluteChange(referenceUs: number, runUs: number): string {
  const d = runUs - referenceUs;
  if (d === 0) return '±0';
  return `${d > 0 ? '+' : '−'}${formatDuration(Math.abs(d))}`;
}

/** estimateAt is a run's change estimate at percentile p, if the API gave one. */
export function estimateAt(r: ComparedRun, p: number): PercentileChange | undefined {
  return r.change?.estimates.find((e) => e.percentile === p);
}

/** signedPoints shows a difference of two fractions in percentage points: 0.012 → "+1.2 pp", 0 → "±0 pp". */
export function signedPoints(diff: number): string {
  const text = Math.abs(diff * 100).toFixed(Math.abs(diff) >= 0.1 ? 0 : 2);
  if (Number(text) === 0) return '±0 pp';
  return `${diff > 0 ? '+' : '−'}${text} pp`;
}

/** percentText shows a fraction as a percentage with two decimals: 0.0123 → "1.23 %". */
export function percentText(fraction: number): string {
  return `${(fraction * 100).toFixed(2)} %`;
}

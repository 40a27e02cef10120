import type { Schemas } from '@/lib/api-client';

type Source = Schemas['Run']['source'];

/** Sources whose runs were read from a Fortio document rather than run by Barrage. */
const importSources: ReadonlySet<Source> = new Set<Source>(['import', 'sync']);

/**
 * isImported tells a run read from a Fortio result document: the result
 * says so, and before it loads the run's source does.
 */
export function isImported(run: Pick<Schemas['Run'], 'source'>, result?: Pick<Schemas['RunResult'], 'imported'> | null): boolean {
  return result?.imported === true || importSources.has(run.source);
}

/** The latencies of a result to show: its primary kind, or service when that kind is absent (imported runs). */
export function headlineLatency(result: Schemas['RunResult']): Schemas['LatencySummary'] {
  return result[result.primary] ?? result.service;
}

export interface BucketRow {
  /** The bucket's range in ms, the bar's label: "1–2 ms". */
  range: string;
  startMs: number;
  endMs: number;
  count: number;
}

/** bucketRows turns an imported document's histogram buckets into bars, in order of their start. */
export function bucketRows(buckets: readonly Schemas['HistogramBucket'][] | undefined): BucketRow[] {
  return [...(buckets ?? [])]
    .sort((a, b) => a.start_us - b.start_us)
    .map((b) => {
      const startMs = b.start_us / 1000;
      const endMs = b.end_us / 1000;
      return { range: `${ms(startMs)}–${ms(endMs)} ms`, startMs, endMs, count: b.count };
    });
}

/** ms shows milliseconds with up to 3 significant digits, more for whole numbers. */
function ms(v: number): string {
  if (v === 0) return '0';
  if (Math.abs(v) >= 100) return String(Math.round(v * 10) / 10);
  return String(Number(v.toPrecision(3)));
}

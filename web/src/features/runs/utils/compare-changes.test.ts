import type { Schemas } from '@/lib/api-client';
import { absoluteChange, changeWords, intervalText, largestChanges, signedPercent, withinNoise } from './compare-changes';

const run = (id: string, p99: number, p999: number, extra: Partial<Schemas['ComparedRun']> = {}): Schemas['ComparedRun'] => ({
  id, name: id, status: 'completed', source: 'ui', labels: {}, count: 1000, p99_us: p99, p999_us: p999, ...extra,
});

describe('signedPercent and changeWords', () => {
  it('says the sign and the direction in words', () => {
    expect(signedPercent(1.12)).toBe('+12 %');
    expect(signedPercent(0.955)).toBe('−4.5 %');
    expect(changeWords(1.12)).toBe('+12 % slower');
    expect(changeWords(0.5)).toBe('−50 % faster');
    expect(changeWords(1.0001)).toBe('no change');
    expect(intervalText(0.97, 1.07)).toBe('−3.0 % … +7.0 %');
    expect(absoluteChange(10_000, 11_200)).toBe('+1.2 ms');
    expect(absoluteChange(1_000, 700)).toBe('−300 µs');
  });
});

describe('largestChanges', () => {
  it('picks, per percentile, the run furthest from the reference either way', () => {
    const got = largestChanges([run('ref', 10_000, 20_000), run('a', 12_000, 10_000), run('b', 9_000, 30_000)]);
    expect(got.map((c) => [c.label, c.index, c.ratio])).toEqual([
      ['p99', 1, 1.2],
      ['p99.9', 1, 0.5],
    ]);
    expect(got[0]).toMatchObject({ referenceUs: 10_000, runUs: 12_000 });
  });

  it('carries the estimate of the chosen run and reports nothing without a reference result', () => {
    const estimate = { percentile: 99, run_us: 12_000, reference_us: 10_000, ratio: 1.2, ratio_low: 0.95, ratio_high: 1.4, verdict: 'inconclusive' as const };
    const got = largestChanges([run('ref', 10_000, 20_000), run('a', 12_000, 20_000, { change: { confidence: 95, estimates: [estimate] } })]);
    expect(got[0]!.estimate).toEqual(estimate);
    expect(withinNoise(estimate)).toBe(true);
    expect(largestChanges([{ ...run('ref', 1, 1), p99_us: undefined, p999_us: undefined }, run('a', 2, 2)])).toEqual([]);
  });
});

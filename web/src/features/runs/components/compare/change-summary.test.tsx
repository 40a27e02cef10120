import { render, screen } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { ChangeSummary } from './change-summary';

const run = (id: string, p99: number, p999: number, change?: Schemas['ComparedRun']['change']): Schemas['ComparedRun'] => ({
  id, name: id, status: 'completed', source: 'ui', labels: {}, count: 1000, p99_us: p99, p999_us: p999, change,
});

describe('ChangeSummary', () => {
  it('gives the largest p99 and p99.9 changes in values, ratio, words, interval and verdict', () => {
    const slower = run('slower', 11_200, 20_000, {
      confidence: 95, seconds: 30,
      estimates: [{ percentile: 99, run_us: 11_200, reference_us: 10_000, ratio: 1.12, ratio_low: 1.07, ratio_high: 1.17, verdict: 'regression' }],
    });
    const other = run('other rate', 10_000, 10_000, { confidence: 95, estimates: [], note: 'the reference asked for 100 qps, this run 200 qps: compare runs at the same rate' });
    render(<ChangeSummary runs={[run('ref', 10_000, 20_000), slower, other]} names={['ref', 'slower', 'other rate']} />);
    const p99 = screen.getByTestId('summary-p99');
    expect(p99).toHaveTextContent('p99 slower: 10 ms → 11.2 ms (+1.2 ms, ×1.12) +12 % slower · 95 % interval +7.0 % … +17 %: regression');
    const p999 = screen.getByTestId('summary-p99.9');
    expect(p999).toHaveTextContent('other rate: 20 ms → 10 ms (−10 ms, ×0.50) −50 % faster · no interval: the reference asked for 100 qps');
  });

  it('says there is nothing to report without a reference result', () => {
    render(<ChangeSummary runs={[{ ...run('ref', 0, 0), count: undefined, p99_us: undefined, p999_us: undefined }, run('a', 1, 1)]} names={['ref', 'a']} />);
    expect(screen.getByText(/No change to report/)).toBeInTheDocument();
  });
});

describe('RateChanges in the summary', () => {
  it('gives each run its qps ratio and error-rate difference with intervals and verdicts', () => {
    const slower = run('slower', 11_200, 20_000, {
      confidence: 95, seconds: 30, estimates: [{ percentile: 99, run_us: 11_200, reference_us: 10_000, ratio: 1.12, ratio_low: 1.07, ratio_high: 1.17, verdict: 'regression' }],
      qps: { run_qps: 38, reference_qps: 40, ratio: 0.95, ratio_low: 0.93, ratio_high: 0.97, verdict: 'regression' },
      error_rate: { run: 0.0125, reference: 0, difference: 0.0125, difference_low: 0.008, difference_high: 0.017, verdict: 'regression' },
    });
    render(<ChangeSummary runs={[run('ref', 10_000, 20_000), slower]} names={['ref', 'slower']} />);
    expect(screen.getByTestId('rate-change-1')).toHaveTextContent(
      'slower: qps 40.0 → 38.0 (−5.0 %, 95 % interval −7.0 % … −3.0 %: regression); errors 0.00 % → 1.25 % (+1.25 pp, 95 % interval +0.80 pp … +1.70 pp: regression)',
    );
  });

  it('is absent when no run has rate estimates', () => {
    render(<ChangeSummary runs={[run('ref', 10_000, 20_000), run('a', 10_000, 20_000)]} names={['ref', 'a']} />);
    expect(screen.queryByTestId('rate-changes')).toBeNull();
  });
});

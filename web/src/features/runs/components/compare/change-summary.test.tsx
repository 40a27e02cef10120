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

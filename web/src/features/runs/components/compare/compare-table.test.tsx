import { screen, within } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { renderRoutes } from '@/testing/render';
import { CompareTable } from './compare-table';

const native: Schemas['ComparedRun'] = {
  id: 'r1', name: 'native', status: 'completed', source: 'ui', labels: {},
  count: 600, errors: 0, qps: 100, min_us: 5144, avg_us: 6454, p50_us: 6027, p75_us: 7000, p90_us: 8151, p99_us: 10543, p999_us: 20000, max_us: 45311,
};
const imported: Schemas['ComparedRun'] = { ...native, id: 'r2', name: 'from fortio', source: 'import', p99_us: 21086 };
const synced: Schemas['ComparedRun'] = { ...native, id: 'r3', name: 'from bucket', source: 'sync' };

describe('CompareTable', () => {
  it('marks imported and synced runs and compares them beside native runs', () => {
    renderRoutes(
      [{ path: '/compare', element: <CompareTable runs={[native, imported, synced]} names={['native', 'from fortio', 'from bucket']} onRemove={() => {}} /> }],
      '/compare',
    );
    const head = (id: string) => screen.getByTestId('compare-table').querySelector(`th[data-run-id="${id}"]`) as HTMLElement;
    expect(within(head('r1')).queryByText('imported')).toBeNull();
    expect(within(head('r2')).getByText('imported')).toBeInTheDocument();
    expect(within(head('r3')).getByText('imported')).toBeInTheDocument();
    const p99 = screen.getByRole('row', { name: /^p99 / });
    expect(p99).toHaveTextContent('21.1 ms');
    expect(p99).toHaveTextContent('+100%');
  });

  it('draws each estimated change with its interval and verdict, and says why a run has none', () => {
    const slower: Schemas['ComparedRun'] = {
      ...native, id: 'r4', name: 'slower', p99_us: 12000,
      change: {
        confidence: 95, seconds: 11,
        estimates: [{ percentile: 99, run_us: 12000, reference_us: 10500, ratio: 1.143, ratio_low: 1.07, ratio_high: 1.2, verdict: 'regression' }],
      },
    };
    const other: Schemas['ComparedRun'] = { ...native, id: 'r5', name: 'other rate', change: { confidence: 95, estimates: [], note: 'the reference asked for 40 qps, this run 20 qps' } };
    renderRoutes(
      [{ path: '/compare', element: <CompareTable runs={[native, slower, other]} names={['native', 'slower', 'other rate']} onRemove={() => {}} /> }],
      '/compare',
    );
    const p99 = screen.getByRole('row', { name: /^p99 / });
    expect(within(p99).getByTestId('interval-p99')).toHaveTextContent('+7.0 % … +20 %regression');
    expect(p99).toHaveTextContent('+13.8% worse');
    expect(screen.getByTestId('change-note-r5')).toHaveTextContent('No interval: the reference asked for 40 qps, this run 20 qps');
  });
});


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
      [{ path: '/compare', element: <CompareTable runs={[native, imported, synced]} names={['native', 'from fortio', 'from bucket']} swatches={false} onRemove={() => {}} /> }],
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
});

import { render, screen, within } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { PhasesTable } from './phases-table';

const lat = (p50: number, count: number): Schemas['LatencySummary'] => ({
  count,
  min_us: p50 / 2,
  avg_us: p50,
  stddev_us: 10,
  p50_us: p50,
  p75_us: p50,
  p90_us: p50 * 1.5,
  p99_us: p50 * 2,
  p999_us: p50 * 2,
  max_us: p50 * 3,
});

function result(phases?: Schemas['RequestPhases']): Schemas['RunResult'] {
  return {
    run_id: 'r',
    status: 'completed',
    imported: false,
    count: 200,
    errors: 0,
    qps: 100,
    duration_seconds: 2,
    primary: 'service',
    service: lat(5200, 200),
    ret_codes: { '200': 200 },
    bytes_sent: 1000,
    bytes_received: 2000,
    shards: 1,
    lost_shards: 0,
    degraded: false,
    phases,
  };
}

describe('PhasesTable', () => {
  it('lists the phases that happened, in request order, with their counts', () => {
    render(<PhasesTable result={result({ waiting: lat(20_000, 200), connect: lat(150, 4), receiving: lat(40, 200) })} />);
    const table = within(screen.getByRole('region', { name: 'Where the time goes' })).getByRole('table');
    const rows = [...table.querySelectorAll('tbody tr')].map((r) => [...r.children].map((c) => c.textContent));
    expect(rows).toEqual([
      ['connect', '4', '150 µs', '225 µs', '300 µs', '450 µs'],
      ['waiting', '200', '20 ms', '30 ms', '40 ms', '60 ms'],
      ['receiving', '200', '40 µs', '60 µs', '80 µs', '120 µs'],
    ]);
  });

  it('shows nothing for a run without phases', () => {
    const { container } = render(<PhasesTable result={result()} />);
    expect(container).toBeEmptyDOMElement();
  });
});

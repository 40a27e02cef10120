import { render, screen, within } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { latency as lat } from '@/testing/latency';
import { EntriesTable } from './entries-table';

function result(entries?: Schemas['EntryResult'][]): Schemas['RunResult'] {
  return {
    run_id: 'r',
    status: 'completed',
    imported: false,
    count: 1000,
    errors: 10,
    qps: 100,
    duration_seconds: 10,
    primary: 'response',
    response: lat(1000, 5000),
    service: lat(900, 4000),
    ret_codes: { '200': 990, '503': 10 },
    bytes_sent: 1,
    bytes_received: 1,
    shards: 1,
    lost_shards: 0,
    degraded: false,
    entries,
  };
}

const entry = (over: Partial<Schemas['EntryResult']>): Schemas['EntryResult'] => ({
  index: 0,
  name: 'reads',
  method: 'GET',
  count: 750,
  errors: 0,
  qps: 75,
  ret_codes: { '200': 750 },
  bytes_sent: 1,
  bytes_received: 1,
  response: lat(800, 3000),
  service: lat(700, 2000),
  ...over,
});

describe('EntriesTable', () => {
  it('lists each entry with its share, rate, errors, primary percentiles and codes', () => {
    render(
      <EntriesTable
        result={result([
          entry({ weight: 3 }),
          entry({ index: 1, name: 'PUT /write/{seq}', method: 'PUT', count: 250, errors: 10, qps: 25, target_qps: 25, ret_codes: { '201': 240, '503': 10 }, response: lat(2000, 9000) }),
        ])}
      />,
    );
    const rows = within(screen.getByTestId('run-entries')).getAllByRole('row');
    expect(rows).toHaveLength(3);
    const cells = (r: HTMLElement) => within(r).getAllByRole('cell').map((c) => c.textContent);
    expect(cells(rows[1]!)[0]).toBe('reads');
    expect(cells(rows[1]!)[1]).toBe('weight 3');
    expect(cells(rows[1]!)[2]).toBe('750');
    expect(cells(rows[1]!)[9]).toBe('200 ×750');
    expect(cells(rows[2]!)[0]).toBe('PUT /write/{seq}');
    expect(cells(rows[2]!)[1]).toContain('25');
    expect(cells(rows[2]!)[5]).toBe('10');
    expect(cells(rows[2]!)[9]).toBe('201 ×240, 503 ×10');
    // Response time is primary: the write's p99 is its response p99.
    expect(cells(rows[2]!)[7]).toBe('9 ms');
  });

  it('renders nothing without a mix', () => {
    const { container } = render(<EntriesTable result={result()} />);
    expect(container).toBeEmptyDOMElement();
  });
});

import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Interval } from '../../utils/intervals';
import { QpsChart } from './qps-chart';

function iv(second: number, limited: boolean): Interval {
  const lat = { p50_us: 1000, p90_us: 2000, p99_us: 3000, max_us: 4000 };
  return {
    second,
    count: 50,
    errors: 0,
    qps: 50,
    response: lat,
    service: lat,
    lag: lat,
    ret_codes: { '200': 50 },
    bytes_sent: 0,
    bytes_received: 0,
    snapshots: 1,
    generator_limited: limited,
  };
}

describe('QpsChart', () => {
  it('names the generator-limited seconds in text and in its table view', async () => {
    const ivs = [0, 1, 2, 3, 4].map((s) => iv(s, s <= 1 || s === 3));
    render(<QpsChart intervals={ivs} target={() => 200} domain={[0, 5]} />);
    expect(screen.getByTestId('generator-limited-seconds')).toHaveTextContent(
      'Generator limited (shaded) at 0:00–0:01, 0:03: the load generator, not the target, was the bottleneck.',
    );
    expect(screen.getByText('generator limited')).toBeInTheDocument();
    await userEvent.click(screen.getByText('Table view'));
    const table = await screen.findByRole('region', { name: 'Requests per second, table view' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell').at(-1)!.textContent)).toEqual(['yes', 'yes', 'no', 'yes', 'no']);
  });

  it('says nothing of it when no second was limited', () => {
    render(<QpsChart intervals={[iv(0, false), iv(1, false)]} domain={[0, 2]} />);
    expect(screen.queryByTestId('generator-limited-seconds')).toBeNull();
    expect(screen.queryByText('generator limited')).toBeNull();
  });
});

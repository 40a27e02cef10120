import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ChartTable } from './chart-table';

const rows = [
  { t: 0, qps: 99.5 },
  { t: 1, qps: 100.25 },
];

describe('ChartTable', () => {
  it('is a focusable toggle that opens to the rows it was given, with named columns', async () => {
    const user = userEvent.setup();
    render(
      <ChartTable
        title="Requests per second"
        rows={rows}
        rowKey={(r) => r.t}
        columns={[
          { label: 'Second', value: (r) => `0:0${r.t}` },
          { label: 'Achieved qps', value: (r) => r.qps.toFixed(1), num: true },
        ]}
      />,
    );
    // Closed: a toggle named for its chart, and no table rendered.
    const toggle = screen.getByText('Table view');
    expect(toggle.closest('summary')).toHaveTextContent('Table view of Requests per second');
    expect(screen.queryByRole('table')).toBeNull();

    await user.tab();
    expect(toggle.closest('summary')).toHaveFocus();
    // jsdom does not open a <details> from the keyboard; the e2e specs press Enter in Chromium.
    await user.click(toggle);

    const region = await screen.findByRole('region', { name: 'Requests per second, table view' });
    expect(region).toHaveAttribute('tabindex', '0');
    const table = within(region).getByRole('table', { name: 'Requests per second: 2 rows' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Second', 'Achieved qps']);
    const body = within(table).getAllByRole('row').slice(1);
    expect(body.map((r) => within(r).getAllByRole('cell').map((c) => c.textContent))).toEqual([
      ['0:00', '99.5'],
      ['0:01', '100.3'],
    ]);
    expect(within(body[0]!).getAllByRole('cell')[1]).toHaveClass('num');
  });
});

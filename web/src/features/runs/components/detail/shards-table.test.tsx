import { render, screen, within } from '@testing-library/react';
import type { RunShard } from '../../utils/shards';
import { ShardsView } from './shards-table';

const now = Date.parse('2026-11-23T10:04:15Z');

function shard(over: Partial<RunShard>): RunShard {
  return {
    shard: 0,
    agent_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    agent_name: 'a-0',
    status: 'done',
    qps: 100,
    connections: 2,
    count: 500,
    errors: 0,
    snapshots: 7,
    final_received: true,
    updated_at: '2026-11-23T10:04:05Z',
    ...over,
  };
}

describe('ShardsView', () => {
  it('lists several shards with their status, figures and a total', () => {
    render(
      <ShardsView
        shards={[
          shard({ shard: 0, agent_name: 'a-0', count: 500 }),
          shard({ shard: 1, agent_name: 'a-1', status: 'lost', final_received: false, count: 180, errors: 2, snapshots: 3, updated_at: '2026-11-23T10:03:15Z' }),
        ]}
        ended
        now={now}
      />,
    );
    const table = screen.getByTestId('run-shards');
    const rows = within(table).getAllByRole('row');
    // Head, two shards, total.
    expect(rows).toHaveLength(4);
    const cells = (r: HTMLElement) => within(r).getAllByRole('cell').map((c) => c.textContent);
    expect(cells(rows[1]!)).toEqual(['0', 'a-0', 'done', '100', '2', '500', '0', '7', '10 s ago']);
    expect(cells(rows[2]!)).toEqual(['1', 'a-1', 'lost', '100', '2', '180', '2', '3', '1 min ago']);
    expect(cells(rows[3]!)).toEqual(['200', '4', '680', '2', '10', '']);
    const badges = within(table).getAllByTestId('shard-status');
    expect(badges.map((b) => b.className)).toEqual(['badge ok', 'badge bad']);
  });

  it('says the one shard in a line instead of a table', () => {
    render(<ShardsView shards={[shard({ agent_name: 'solo', qps: 0, connections: 1, count: 1234, snapshots: 1 })]} ended={false} now={now} />);
    expect(screen.queryByTestId('run-shards')).toBeNull();
    expect(screen.getByTestId('run-shards-summary')).toHaveTextContent(
      'One shard, on solo: done · max qps on 1 connection · 1,234 requests, 0 errors · 1 snapshot · updated 10 s ago',
    );
  });

  it('says why there is no shard', () => {
    const { rerender } = render(<ShardsView shards={[]} ended={false} now={now} />);
    expect(screen.getByText('No shards yet: the run waits for agents.')).toBeInTheDocument();
    rerender(<ShardsView shards={[]} ended now={now} />);
    expect(screen.getByText('The run ended before it reached an agent.')).toBeInTheDocument();
  });
});

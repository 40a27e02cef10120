import { render, screen, within } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { renderRoutes } from '@/testing/render';
import { AgentsView } from './agents-view';

const now = Date.parse('2026-01-01T00:00:10Z');
const agent = (over: Partial<Schemas['Agent']>): Schemas['Agent'] => ({
  id: 'a', name: 'a', labels: {}, version: 'v1.4.0', capacity: 4, running_shards: 0, rss_bytes: 50 * 1024 * 1024, cpu_percent: 12.34,
  first_seen_at: '2026-01-01T00:00:00Z', last_seen_at: '2026-01-01T00:00:08Z', ...over,
});

describe('AgentsView', () => {
  it('lists each agent with its pool, labels, version, shards, capacity, CPU and memory', () => {
    const items = [
      agent({ id: '1', name: 'gpu-1', labels: { pool: 'gpu', zone: 'eu' }, running_shards: 3 }),
      agent({ id: '2', name: 'old', last_seen_at: '2026-01-01T00:00:01Z', running_shards: 2 }),
    ];
    render(<AgentsView items={items} now={now} project="default" pools={['gpu']} />);
    expect(screen.getByTestId('agents-live')).toHaveTextContent('1 of 2 live · 3 of 4 shard slots busy');
    expect(screen.getByTestId('agents-pools')).toHaveTextContent('Project default may use only agents of the pools gpu: 1 of 1 live.');
    const rows = within(screen.getByRole('table', { name: 'Agents' })).getAllByRole('row');
    expect(within(rows[1]!).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      'gpu-1', '● live', 'gpu', 'zone=eu', 'v1.4.0', '3', '4', '12.3%', '50 MiB', '2 s ago', 'usable',
    ]);
    // A gone agent's last figures are not shown as current.
    expect(within(rows[2]!).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      'old', '○ gone', 'none', '', 'v1.4.0', '–', '4', '–', '–', '9 s ago', 'other pool',
    ]);
    expect(screen.queryByText('No agents online')).toBeNull();
  });

  it('links the shards an agent holds to their runs, naming an unnamed run by runName', () => {
    const runId = '01890a5d-ac96-774b-bcce-b302099a8057';
    const items = [
      agent({
        id: '1', name: 'busy', running_shards: 3,
        shards: [
          { run_id: runId, run_name: 'checkout', shard: 0, status: 'running', qps: 100 },
          { run_id: '11111111-2222-4333-8444-555555abcdef', run_name: '', shard: 2, status: 'assigned', qps: 50 },
        ],
      }),
    ];
    renderRoutes([{ path: '/agents', element: <AgentsView items={items} now={now} project="default" pools={[]} /> }], '/agents');
    const held = screen.getByRole('list', { name: 'Shards busy holds' });
    const rows = within(held).getAllByRole('listitem');
    expect(rows.map((r) => r.textContent)).toEqual(['checkout #0', expect.stringMatching(/abcdef #2 \(starting\)$/)]);
    expect(within(rows[0]!).getByRole('link', { name: 'checkout' })).toHaveAttribute('href', `/runs/${runId}`);
  });

  it('says no agent is online and how to start one, above the agents that stopped reporting', () => {
    render(<AgentsView items={[agent({ last_seen_at: '2026-01-01T00:00:01Z' })]} now={now} project="default" pools={[]} />);
    const empty = screen.getByRole('region', { name: 'No agents online' });
    expect(empty).toHaveTextContent('The agent below has stopped reporting.');
    expect(empty).toHaveTextContent('barrage-agent serve -nats-url nats://NATS_HOST:4222 -creds agent-1.creds');
    expect(screen.getByTestId('agents-live')).toHaveTextContent('0 of 1 live · 0 of 0 shard slots busy');
    expect(screen.getByRole('table', { name: 'Agents' })).toBeInTheDocument();
  });

  it('shows only the next step when no agent ever reported', () => {
    render(<AgentsView items={[]} now={now} project="default" pools={[]} />);
    expect(screen.getByRole('region', { name: 'No agents online' })).toHaveTextContent('Runs wait in the queue until an agent is online');
    expect(screen.getByTestId('agents-pools')).toHaveTextContent('Project default may use every agent.');
    expect(screen.queryByRole('table')).toBeNull();
  });
});

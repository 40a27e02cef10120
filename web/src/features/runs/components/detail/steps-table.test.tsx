import { render, screen, within } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { latency as lat } from '@/testing/latency';
import { StepsTable } from './steps-table';

const step = (over: Partial<Schemas['StepResult']>): Schemas['StepResult'] => ({
  index: 0,
  name: 'login',
  count: 40,
  errors: 0,
  skipped: 0,
  ret_codes: { '200': 40 },
  failed_checks: {},
  response: lat(1_000, 18_000),
  service: lat(900, 17_000),
  lag: lat(10, 100),
  ...over,
});

function result(scenario?: Schemas['ScenarioResult']): Schemas['RunResult'] {
  return {
    run_id: 'r',
    status: 'completed',
    imported: false,
    count: 120,
    errors: 40,
    qps: 100,
    duration_seconds: 1,
    primary: 'response',
    response: lat(1000, 5000),
    service: lat(900, 4000),
    ret_codes: { '200': 120 },
    bytes_sent: 1,
    bytes_received: 1,
    shards: 2,
    lost_shards: 0,
    degraded: false,
    scenario,
  };
}

describe('StepsTable', () => {
  it('renders nothing for a run without a scenario', () => {
    const { container } = render(<StepsTable result={result()} />);
    expect(container).toBeEmptyDOMElement();
  });

  it('shows the iterations and a row per step with its failures by name', () => {
    render(
      <StepsTable
        result={result({
          started: 40,
          completed: 0,
          failed: 40,
          iteration: lat(1_398, 19_890),
          steps: [
            step({}),
            step({ index: 1, name: 'profile', response: lat(154, 886) }),
            step({
              index: 2,
              name: 'create',
              errors: 40,
              failed_checks: { created: 40 },
              transport_errors: { timeout: 2 },
            }),
          ],
        })}
      />,
    );
    const region = screen.getByRole('region', { name: 'Scenario steps' });
    expect(within(region).getByTestId('scenario-iterations')).toHaveTextContent(
      '40 iterations started, 0 completed, 40 failed (100%). Iteration duration p50 1.4 ms, p90 19.9 ms, p99 19.9 ms, max 19.9 ms.',
    );
    const rows = within(region).getAllByRole('row');
    expect(rows).toHaveLength(4);
    expect(within(rows[1]!).getByRole('rowheader')).toHaveTextContent('login');
    expect(rows[2]).toHaveTextContent('profile');
    expect(rows[2]).toHaveTextContent('154 µs');
    expect(rows[3]).toHaveTextContent('failed checks: created ×40');
    expect(rows[3]).toHaveTextContent('no response: timeout ×2');
    expect(within(rows[3]!).getAllByRole('cell')[1]).toHaveClass('bad-figure');
  });
});

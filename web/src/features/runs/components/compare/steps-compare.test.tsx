import { render, screen, within } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { latency as lat } from '@/testing/latency';
import { StepsCompare, stepNames } from './steps-compare';

const step = (index: number, name: string, p99: number, errors = 0): Schemas['StepResult'] => ({
  index, name, count: 40, errors, skipped: 0, ret_codes: { '200': 40 }, failed_checks: {},
  response: lat(p99 / 4, p99), service: lat(1, 1), lag: lat(1, 1),
});

const run = (id: string, steps?: Schemas['StepResult'][]): Schemas['ComparedRun'] => ({
  id, name: id, status: 'completed', source: 'api', labels: {},
  scenario: steps && { started: 40, completed: 30, failed: 10, iteration: lat(5_000, 20_000), steps },
});

describe('StepsCompare', () => {
  it('lists the step names in the order of the first run having each', () => {
    expect(stepNames([run('a', [step(0, 'login', 1), step(1, 'read', 1)]), run('b', [step(0, 'login', 1), step(1, 'write', 1)])])).toEqual([
      'login', 'read', 'write',
    ]);
    expect(stepNames([run('plain')])).toEqual([]);
  });

  it('renders nothing without a scenario run', () => {
    const { container } = render(<StepsCompare runs={[run('a'), run('b')]} names={['a', 'b']} />);
    expect(container).toBeEmptyDOMElement();
  });

  it('matches steps by name and gives each p99 against the first run that has it', () => {
    const a = run('a', [step(0, 'login', 10_000), step(1, 'read', 2_000)]);
    const b = run('b', [step(0, 'login', 15_000, 3), step(1, 'write', 4_000)]);
    render(<StepsCompare runs={[a, b, run('plain')]} names={['a', 'b', 'plain']} />);
    const table = screen.getByTestId('compare-steps');
    const cells = (name: string) => within(within(table).getByTestId(name)).getAllByRole('cell');
    const login = cells('step-login');
    expect(login[0]).toHaveTextContent('p50 2.5 ms · p99 10 ms40 requests · 0 errors');
    expect(login[1]).toHaveTextContent('p99 15 ms (+50%)');
    expect(login[1]).toHaveTextContent('3 errors');
    expect(login[2]).toHaveTextContent('no such step');
    expect(cells('step-read')[1]).toHaveTextContent('no such step');
    expect(cells('step-write')[1]).not.toHaveTextContent('%');
    expect(cells('steps-iterations')[0]).toHaveTextContent('40 started · 10 failed');
    expect(cells('steps-iterations')[2]).toHaveTextContent('not a scenario');
  });
});

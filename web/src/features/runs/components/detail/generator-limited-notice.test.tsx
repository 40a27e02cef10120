import { render, screen } from '@testing-library/react';
import type { Schemas } from '@/lib/api-client';
import { GeneratorLimitedNotice } from './generator-limited-notice';

function result(limited?: number, duration = 30.2): Schemas['RunResult'] {
  return {
    run_id: 'r',
    status: 'completed',
    imported: false,
    count: 3000,
    errors: 0,
    qps: 100,
    duration_seconds: duration,
    primary: 'response',
    service: { count: 3000, min_us: 1, avg_us: 2, stddev_us: 1, p50_us: 2, p75_us: 2, p90_us: 3, p99_us: 4, p999_us: 5, max_us: 6 },
    ret_codes: { '200': 3000 },
    bytes_sent: 1000,
    bytes_received: 2000,
    shards: 1,
    lost_shards: 0,
    degraded: false,
    generator_limited_seconds: limited,
  };
}

describe('GeneratorLimitedNotice', () => {
  it('says for how many of the run seconds the generator was the bottleneck', () => {
    render(<GeneratorLimitedNotice result={result(12)} />);
    expect(screen.getByRole('note', { name: 'Generator limited' })).toHaveTextContent(
      'The load generator was the bottleneck for 12 of 30 s: figures measure the agent, not the target.',
    );
  });

  it('counts a tail second beyond the run length in both figures', () => {
    render(<GeneratorLimitedNotice result={result(4, 3)} />);
    expect(screen.getByRole('note', { name: 'Generator limited' })).toHaveTextContent('bottleneck for 4 of 4 s');
  });

  it('shows nothing for a run the generator kept up with', () => {
    const { container } = render(<GeneratorLimitedNotice result={result(undefined)} />);
    expect(container).toBeEmptyDOMElement();
  });
});

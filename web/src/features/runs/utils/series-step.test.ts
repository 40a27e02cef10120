import { seriesStep } from './series-step';

describe('seriesStep', () => {
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 28, 8, 0) + minutes * 60_000).toISOString();

  it('reads every second of a live run, and of an ended run of up to 300 s', () => {
    expect(seriesStep({ status: 'running', started_at: at(0) })).toBe(1);
    expect(seriesStep({ status: 'completed', started_at: at(0), ended_at: at(5) })).toBe(1);
    expect(seriesStep({ status: 'completed' })).toBe(1);
  });

  it('widens the rows so that an ended run has at most 300 a shard', () => {
    expect(seriesStep({ status: 'completed', started_at: at(0), ended_at: new Date(Date.parse(at(5)) + 1000).toISOString() })).toBe(2);
    expect(seriesStep({ status: 'canceled', started_at: at(0), ended_at: at(60) })).toBe(12);
    expect(seriesStep({ status: 'failed', started_at: at(0), ended_at: at(24 * 60) })).toBe(288);
    // Stored faster than measured: 3,600 s of requests ended 20 s after the start.
    expect(seriesStep({ status: 'completed', started_at: at(0), ended_at: new Date(Date.parse(at(0)) + 20_000).toISOString(), summary: { count: 720_000, errors: 0, qps: 200 } })).toBe(12);
  });
});

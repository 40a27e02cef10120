import { describe, expect, it } from 'vitest';
import type { Schemas } from '@/lib/api-client';
import { searchAnswer, searchNextStep, stepPoints } from './steps';

const step = (over: Partial<Schemas['SearchStep']>): Schemas['SearchStep'] => ({
  step: 0, qps: 50, status: 'passed', count: 100, errors: 0, achieved_qps: 50, p50_us: 10_000, p90_us: 12_000,
  p99_us: 20_000, max_us: 30_000, outcomes: [], detail: '', started_at: '2026-01-01T00:00:00Z', ...over,
});

describe('stepPoints', () => {
  it('orders finished steps by rate and leaves out running and erred ones', () => {
    const pts = stepPoints([
      step({ step: 0, qps: 50 }),
      step({ step: 1, qps: 200, status: 'failed', errors: 10, count: 400 }),
      step({ step: 2, qps: 125 }),
      step({ step: 3, qps: 160, status: 'running' }),
      step({ step: 4, qps: 140, status: 'error' }),
    ]);
    expect(pts.map((p) => p.qps)).toEqual([50, 125, 200]);
    expect(pts[2]).toMatchObject({ passed: false, errorRate: 0.025, step: 1 });
  });

  it('gives an empty step an error rate of 0', () => {
    expect(stepPoints([step({ count: 0, errors: 0, status: 'failed' })])[0]?.errorRate).toBe(0);
  });
});

describe('searchAnswer', () => {
  const base = { message: 'meets the objective up to 175 qps; fails at 178.13 qps' } as Schemas['Search'];
  it('counts the steps done while running', () => {
    expect(searchAnswer({ ...base, status: 'running', steps: [step({}), step({ status: 'running' })] })).toBe('running: 1 step done');
  });
  it('is the message once ended', () => {
    expect(searchAnswer({ ...base, status: 'completed', steps: [] })).toBe(base.message);
  });
});

describe('searchNextStep', () => {
  const base = { status: 'completed', min_qps: 20, max_qps: 400, steps: [] } as unknown as Schemas['Search'];
  it('asks for a lower minimum when even it failed, a higher maximum when the maximum passed', () => {
    expect(searchNextStep({ ...base, outcome: 'not_met' })).toMatch(/^The objective was not met even at 20 qps, .*Widen the range down/);
    expect(searchNextStep({ ...base, outcome: 'above_max' })).toMatch(/^The objective was met even at 400 qps, .*Widen the range up/);
  });
  it('has nothing to add to an answer found or a search still running', () => {
    expect(searchNextStep({ ...base, outcome: 'found' })).toBeUndefined();
    expect(searchNextStep({ ...base, status: 'running' })).toBeUndefined();
  });
});

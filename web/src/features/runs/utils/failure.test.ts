import { describe, expect, it } from 'vitest';
import { failureAdvice } from './failure';

describe('failureAdvice', () => {
  it('names the rate for a run stopped because the rate was not held', () => {
    expect(failureAdvice({ status: 'failed', error: 'rate not held: 39 qps against 200 for 5 s', aborted_by: 'abort_if_rate_not_held' })).toEqual({
      text: 'The agents could not hold the rate: add connections or agents, or lower the rate, and run again.',
      agents: true,
    });
  });
  it('points at the agents when one was lost or none was there', () => {
    expect(failureAdvice({ status: 'failed', error: 'all shards lost' })?.text).toMatch(/^An agent was lost/);
    expect(failureAdvice({ status: 'failed', error: 'agent agent-2 lost' })?.text).toMatch(/^An agent was lost/);
    expect(failureAdvice({ status: 'failed', error: 'no agents available' })?.text).toMatch(/^An agent was lost/);
  });
  it('has a general next step for any other failure, and one for a canceled run', () => {
    expect(failureAdvice({ status: 'failed', error: 'dispatch: timeout' })?.text).toMatch(/^Check that the target answers/);
    expect(failureAdvice({ status: 'canceled' })).toEqual({ text: 'Start it again from New run when you are ready.', agents: false });
  });
  it('has nothing for a run that did not fail', () => {
    expect(failureAdvice({ status: 'completed' })).toBeUndefined();
    expect(failureAdvice({ status: 'running' })).toBeUndefined();
  });
});

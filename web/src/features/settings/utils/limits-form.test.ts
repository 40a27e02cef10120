import type { Schemas } from '@/lib/api-client';
import { draftOf, limitsErrorsOf, toLimitsUpdate, type LimitsDraft } from './limits-form';

const deployment: Schemas['LimitValues'] = { max_qps: 1000, max_connections: 50, max_duration: '10m0s', max_agents: 4, max_concurrent_runs: 20 };
const blank: LimitsDraft = { max_qps: '', max_connections: '', max_duration: '', max_agents: '', max_concurrent_runs: '' };

describe('draftOf', () => {
  it('shows the limits the project sets and blanks the deployment ones', () => {
    expect(
      draftOf({ ...deployment, max_qps: 100, max_duration: '30s', overridden: ['max_qps', 'max_duration'], deployment }),
    ).toEqual({ ...blank, max_qps: '100', max_duration: '30s' });
  });
});

describe('toLimitsUpdate', () => {
  it('leaves blanks out and reads numbers and durations', () => {
    expect(toLimitsUpdate({ ...blank, max_qps: ' 250.5 ', max_duration: '30m', max_concurrent_runs: '3' })).toEqual({
      ok: true,
      body: { max_qps: 250.5, max_duration: '30m', max_concurrent_runs: 3 },
    });
    expect(toLimitsUpdate({ ...blank, max_duration: '90' })).toEqual({ ok: true, body: { max_duration: 90 } });
    expect(toLimitsUpdate(blank)).toEqual({ ok: true, body: {} });
  });
  it('names each limit it cannot read', () => {
    expect(toLimitsUpdate({ ...blank, max_qps: 'fast', max_connections: '2.5', max_duration: 'soon', max_agents: '-1' })).toEqual({
      ok: false,
      errors: {
        max_qps: 'must be a number',
        max_connections: 'must be a whole number',
        max_duration: 'must be a duration such as 30m or 1h, or a number of seconds',
        max_agents: 'must be a whole number',
      },
    });
  });
});

describe('limitsErrorsOf', () => {
  it('places limits.<name> errors and keeps the others as text', () => {
    expect(
      limitsErrorsOf([
        { field: 'limits.max_qps', message: "must be above 0 and at most 1000, this server's limit" },
        { field: 'limits.max_agents', message: "must be from 1 to 4, this server's limit" },
        { field: 'name', message: 'too long' },
      ]),
    ).toEqual({
      fields: { max_qps: "must be above 0 and at most 1000, this server's limit", max_agents: "must be from 1 to 4, this server's limit" },
      other: ['name: too long'],
    });
  });
});

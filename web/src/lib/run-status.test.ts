import { anyActive, canStop, isActive, isRunStatus, isTerminal, runStatuses, statusTone, verdictTone } from './run-status';

describe('run status', () => {
  it('lists every status once, in lifecycle order', () => {
    expect(runStatuses).toEqual(['queued', 'dispatching', 'running', 'stopping', 'completed', 'failed', 'canceled']);
  });

  it('recognises only the API statuses', () => {
    expect(isRunStatus('stopping')).toBe(true);
    expect(isRunStatus('exploded')).toBe(false);
    expect(isRunStatus('')).toBe(false);
  });

  it('splits statuses into terminal and active', () => {
    expect(runStatuses.filter((s) => isTerminal(s))).toEqual(['completed', 'failed', 'canceled']);
    expect(runStatuses.filter(isActive)).toEqual(['queued', 'dispatching', 'running', 'stopping']);
    expect(isTerminal(undefined)).toBe(false);
  });

  it('finds an active run among runs', () => {
    expect(anyActive([])).toBe(false);
    expect(anyActive([{ status: 'completed' }, { status: 'canceled' }])).toBe(false);
    expect(anyActive([{ status: 'completed' }, { status: 'stopping' }])).toBe(true);
  });

  it('offers stop until the run is stopping', () => {
    expect(runStatuses.filter((s) => canStop(s))).toEqual(['queued', 'dispatching', 'running']);
    expect(canStop(undefined)).toBe(false);
  });

  it('gives each status and verdict its badge class', () => {
    expect(runStatuses.map(statusTone)).toEqual(['muted', 'info', 'info', 'warn', 'ok', 'bad', 'muted']);
    expect((['pass', 'fail', 'error'] as const).map(verdictTone)).toEqual(['ok', 'bad', 'warn']);
  });
});

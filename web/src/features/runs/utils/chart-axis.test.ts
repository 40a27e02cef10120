import { clock, timeDomain, timeTicks } from './chart-axis';

describe('clock', () => {
  it.each([
    [0, '0:00'],
    [7, '0:07'],
    [65, '1:05'],
    [3599, '59:59'],
    [3723, '1:02:03'],
  ])('shows %d s as %s', (t, want) => expect(clock(t)).toBe(want));
});

describe('timeDomain', () => {
  it('spans the planned run while few seconds are in', () => {
    expect(timeDomain(2, 8)).toEqual([0, 8]);
  });
  it('grows past the plan when the run overruns, and has a width when empty', () => {
    expect(timeDomain(9, 8)).toEqual([0, 9]);
    expect(timeDomain(undefined, undefined)).toEqual([0, 1]);
  });
});

describe('timeTicks', () => {
  it('steps in round seconds within the domain', () => {
    expect(timeTicks([0, 7])).toEqual([0, 2, 4, 6]);
    expect(timeTicks([0, 8])).toEqual([0, 2, 4, 6, 8]);
    expect(timeTicks([0, 59])).toEqual([0, 10, 20, 30, 40, 50]);
  });
  it('steps in minutes for an hour', () => {
    expect(timeTicks([0, 3599])).toEqual([0, 600, 1200, 1800, 2400, 3000]);
  });
});

import { durationSeconds, plannedSeconds } from './duration';

describe('durationSeconds', () => {
  it.each([
    ['5s', 5],
    ['1m30s', 90],
    ['250ms', 0.25],
    ['1h2m3.5s', 3723.5],
    ['1.5h', 5400],
    ['0s', 0],
    ['0', 0],
    ['100µs', 0.0001],
    ['100us', 0.0001],
    ['-2s', -2],
  ])('reads %s', (text, want) => {
    expect(durationSeconds(text)).toBeCloseTo(want, 9);
  });

  it('takes numbers as seconds', () => {
    expect(durationSeconds(1.5)).toBe(1.5);
  });

  it.each(['', 's', '5', '5x', '1m junk', 'abc'])('refuses %j', (text) => {
    expect(durationSeconds(text)).toBeUndefined();
  });

  it('is undefined when absent', () => {
    expect(durationSeconds(undefined)).toBeUndefined();
  });
});

describe('plannedSeconds', () => {
  it('is the duration of a timed run', () => {
    expect(plannedSeconds({ url: 'http://x/', duration: '8s' })).toBe(8);
  });
  it('is undefined for count-based and until-stopped runs', () => {
    expect(plannedSeconds({ url: 'http://x/', duration: '8s', count: 100 })).toBeUndefined();
    expect(plannedSeconds({ url: 'http://x/', until_stopped: true })).toBeUndefined();
  });
});

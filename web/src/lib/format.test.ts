import {
  formatAgo,
  formatBytes,
  formatCount,
  formatDelta,
  formatDuration,
  formatPercent,
  formatRate,
  formatSeconds,
  formatUntil,
  runSeconds,
} from './format';

describe('formatDuration', () => {
  it.each([
    [0, '0 µs'],
    [0.5, '0.5 µs'],
    [12.345, '12.3 µs'],
    [999, '999 µs'],
    [1_000, '1 ms'],
    [1_234, '1.23 ms'],
    [85_432, '85.4 ms'],
    [999_499, '999 ms'],
    [1_500_000, '1.5 s'],
    [59_900_000, '59.9 s'],
    [125_000_000, '2m05s'],
    [3_725_000_000, '1h02m'],
  ])('%d µs is %s', (us, want) => {
    expect(formatDuration(us)).toBe(want);
  });
  it('shows a dash for a missing value', () => {
    expect(formatDuration(undefined)).toBe('–');
    expect(formatDuration(Number.NaN)).toBe('–');
  });
});

describe('formatSeconds', () => {
  it.each([
    [5, '5 s'],
    [4.25, '4.25 s'],
    [60, '1m00s'],
    [3599, '59m59s'],
    [7200, '2h00m'],
  ])('%d s is %s', (s, want) => expect(formatSeconds(s)).toBe(want));
});

describe('formatRate', () => {
  it.each([
    [0, '0'],
    [0.5, '0.5'],
    [12.34, '12.3'],
    [199.96, '200'],
    [1234.4, '1,234'],
    [12_345, '12.3k'],
    [1_234_567, '1.23M'],
  ])('%d/s is %s', (q, want) => expect(formatRate(q)).toBe(want));
});

describe('other formats', () => {
  it('counts with separators', () => expect(formatCount(1234567)).toBe('1,234,567'));
  it('groups digits as en-US does', () => {
    const en = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
    for (const n of [0, 7, 99, 100, 999, 1000, 12_345, 999_999, 1_000_000, 72_000_000, 123_456_789_012, 2 ** 53, -1, -1234, -987_654_321, 1234.5, -0.4]) {
      expect(formatCount(n)).toBe(en.format(Math.round(n)).replace(/^-0$/, '0'));
    }
    expect(formatCount(1e22)).toBe('1e+22');
    expect(formatRate(123_456.7)).toBe('123k');
    expect(formatRate(4_321.4)).toBe('4,321');
  });
  it('percentages', () => {
    expect(formatPercent(0)).toBe('0%');
    expect(formatPercent(0.5)).toBe('50%');
    expect(formatPercent(0.00001)).toBe('<0.01%');
    expect(formatPercent(0.999)).toBe('99.9%');
  });
  it('bytes', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(20 * 1024 * 1024)).toBe('20 MiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
  });
  it('deltas against a base', () => {
    expect(formatDelta(100, 112.3)).toBe('+12.3%');
    expect(formatDelta(200, 191)).toBe('−4.5%');
    expect(formatDelta(5, 5)).toBe('=');
    expect(formatDelta(0, 3)).toBe('+∞');
    expect(formatDelta(undefined, 3)).toBe('–');
  });
  it('ago', () => {
    const now = Date.parse('2026-01-01T00:10:00Z');
    expect(formatAgo('2026-01-01T00:09:57Z', now)).toBe('3 s ago');
    expect(formatAgo('2026-01-01T00:05:00Z', now)).toBe('5 min ago');
    expect(formatAgo('2025-12-30T00:10:00Z', now)).toBe('2 d ago');
  });
  it('until', () => {
    const now = Date.parse('2026-01-01T00:10:00Z');
    expect(formatUntil('2026-01-01T00:10:03Z', now)).toBe('in 3 s');
    expect(formatUntil('2026-01-01T00:25:00Z', now)).toBe('in 15 min');
    expect(formatUntil('2026-01-01T03:10:00Z', now)).toBe('in 3 h');
    expect(formatUntil('2026-01-03T00:10:00Z', now)).toBe('in 2 d');
    expect(formatUntil('2026-01-01T00:09:57Z', now)).toBe('3 s ago');
    expect(formatUntil(undefined, now)).toBe('–');
  });
  it('run seconds', () => {
    expect(runSeconds('2026-01-01T00:00:00Z', '2026-01-01T00:00:05.5Z')).toBe(5.5);
    expect(runSeconds(undefined, undefined)).toBeUndefined();
    expect(runSeconds('2026-01-01T00:00:00Z', undefined, Date.parse('2026-01-01T00:01:00Z'))).toBe(60);
  });
});

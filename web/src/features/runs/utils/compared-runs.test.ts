import { runName } from '@/lib/run-name';
import { displayName, hasResult, legendNames, runColor, shortId } from './compared-runs';

describe('shortId', () => {
  it('takes the random tail of a UUIDv7', () => {
    expect(shortId('01a20ab7-c452-7007-ab61-de4049153185')).toBe('153185');
  });
});

describe('legendNames', () => {
  it('uses plain names when they differ', () => {
    expect(
      legendNames([
        { id: '01a20ab7-c325-7332-998d-3e2cfe4edfc3', name: 'baseline' },
        { id: '01a20ab7-c3b4-75ad-adac-a04283958243', name: 'candidate' },
      ]),
    ).toEqual(['baseline', 'candidate']);
  });

  it('adds the short id to names that repeat, and only to those', () => {
    expect(
      legendNames([
        { id: '01a20ab7-c325-7332-998d-3e2cfe4edfc3', name: 'nightly' },
        { id: '01a20ab7-c3b4-75ad-adac-a04283958243', name: 'nightly' },
        { id: '01a20ab7-c452-7007-ab61-de4049153185', name: 'other' },
      ]),
    ).toEqual(['nightly (4edfc3)', 'nightly (958243)', 'other']);
  });

  it('names an unnamed run by its date and id tail, as everywhere', () => {
    expect(legendNames([{ id: '01a20ab7-c325-7332-998d-3e2cfe4edfc3', name: '' }])).toEqual([runName({ id: '01a20ab7-c325-7332-998d-3e2cfe4edfc3' })]);
    expect(legendNames([{ id: '01a20ab7-c325-7332-998d-3e2cfe4edfc3', name: '' }])[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d · 4edfc3$/);
  });
});

describe('displayName', () => {
  it('is the name, else the date and the id tail', () => {
    const id = '01a20ab7-c325-7332-998d-3e2cfe4edfc3';
    expect(displayName({ id, name: 'nightly', created_at: '2026-11-27T06:00:00Z' })).toBe('nightly');
    const unnamed = displayName({ id, name: '', created_at: '2026-11-27T06:00:00Z' });
    expect(unnamed.endsWith(' · 4edfc3')).toBe(true);
    expect(unnamed).toContain('2026');
  });
});

describe('runColor', () => {
  it('walks --chart-1..6 in order and wraps', () => {
    expect([0, 1, 5, 6].map(runColor)).toEqual(['var(--chart-1)', 'var(--chart-2)', 'var(--chart-6)', 'var(--chart-1)']);
  });
});

describe('hasResult', () => {
  it('tells runs with figures from runs listed by status only', () => {
    expect(hasResult({ id: 'a', name: 'a', status: 'completed', source: 'ui', labels: {}, count: 0, errors: 0 })).toBe(true);
    expect(hasResult({ id: 'a', name: 'a', status: 'running', source: 'ui', labels: {} })).toBe(false);
  });
});

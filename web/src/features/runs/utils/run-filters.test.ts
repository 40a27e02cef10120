import { runName } from '@/lib/run-name';
import { emptyFilters, filtersFromParams, filtersToParams, hasFilters, labelFilterError, matchesPick, matchesText, previousOfTest, type RunFilters } from './run-filters';

describe('run filters in the URL', () => {
  it('round-trips every filter', () => {
    const f: RunFilters = { status: ['running', 'completed'], test: '0190b1c2-0000-7000-8000-000000000001', labels: ['team=a', 'env=prod=1'], q: 'checkout api' };
    const params = filtersToParams(f);
    expect(params.toString()).toBe('status=running%2Ccompleted&test=0190b1c2-0000-7000-8000-000000000001&label=team%3Da&label=env%3Dprod%3D1&q=checkout+api');
    expect(filtersFromParams(new URLSearchParams(params.toString()))).toEqual(f);
  });

  it('writes statuses in canonical order, so one filter is one URL', () => {
    expect(filtersToParams({ ...emptyFilters, status: ['failed', 'queued'] }).get('status')).toBe('queued,failed');
  });

  it('leaves no params for no filters', () => {
    expect(filtersToParams(emptyFilters).toString()).toBe('');
    expect(filtersFromParams(new URLSearchParams())).toEqual(emptyFilters);
    expect(hasFilters(emptyFilters)).toBe(false);
  });

  it('drops what the API would refuse from a hand-edited URL', () => {
    const f = filtersFromParams(new URLSearchParams('status=running,bogus,running&label=nokey&label==x&label=ok=1&label=ok=1'));
    expect(f.status).toEqual(['running']);
    expect(f.labels).toEqual(['ok=1']);
  });

  it('checks label filters', () => {
    expect(labelFilterError('team=a')).toBeUndefined();
    expect(labelFilterError('team=')).toBeUndefined();
    expect(labelFilterError('team')).toBe('Use key=value');
    expect(labelFilterError('bad key=a')).toMatch(/key/);
  });
});

describe('matchesText', () => {
  const run = { name: 'Checkout smoke', target: 'https://shop.internal/api/checkout' };
  it('matches every word in name or target, ignoring case', () => {
    expect(matchesText(run, '')).toBe(true);
    expect(matchesText(run, 'SMOKE shop')).toBe(true);
    expect(matchesText(run, 'smoke cart')).toBe(false);
  });
});

describe('matchesPick', () => {
  const run = {
    id: '019a6f2e-1c2d-7abc-8def-0123456789ab',
    name: 'Checkout smoke',
    target: 'https://shop.internal/api/checkout',
    labels: { team: 'pay', env: 'staging' },
    created_at: '2026-11-27T09:00:00Z',
  };
  it('matches every word in the name, target, id or labels, ignoring case', () => {
    expect(matchesPick(run, '')).toBe(true);
    expect(matchesPick(run, 'SMOKE shop')).toBe(true);
    expect(matchesPick(run, 'team=pay')).toBe(true);
    expect(matchesPick(run, 'env=prod')).toBe(false);
    expect(matchesPick(run, '6789ab')).toBe(true);
    expect(matchesPick(run, 'smoke cart')).toBe(false);
  });
  it('finds an unnamed run by the name it is shown with', () => {
    const unnamed = { ...run, name: '' };
    expect(matchesPick(unnamed, runName(unnamed))).toBe(true);
    expect(matchesPick(unnamed, 'checkout smoke')).toBe(false);
  });
});

describe('previousOfTest', () => {
  const run = (id: string, test: string | undefined, minute: number) => ({ id, test_id: test, created_at: `2026-11-27T09:${String(minute).padStart(2, '0')}:00Z` });
  // Newest first, as the picker lists them.
  const runs = [run('d', 't1', 40), run('c', 't2', 30), run('b', 't1', 20), run('a', 't1', 10), run('x', undefined, 5)];
  it('is the test run just before the first chosen one', () => {
    expect(previousOfTest(runs, ['d'])?.id).toBe('b');
    expect(previousOfTest(runs, ['d', 'b'])?.id).toBe('a');
    expect(previousOfTest(runs, ['b', 'c'])?.id).toBe('a');
  });
  it('is undefined for the oldest, a run of no test, or one not listed', () => {
    expect(previousOfTest(runs, ['a'])).toBeUndefined();
    expect(previousOfTest(runs, ['x'])).toBeUndefined();
    expect(previousOfTest(runs, ['gone'])).toBeUndefined();
    expect(previousOfTest(runs, [])).toBeUndefined();
  });
});

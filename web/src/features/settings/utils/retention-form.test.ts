import { retentionDraftOf, retentionErrorsOf, retentionText, toRetentionUpdate } from './retention-form';

describe('retentionDraftOf', () => {
  it('shows stored days and blanks for forever', () => {
    expect(retentionDraftOf({ run_retention_days: 30 })).toEqual({ interval_retention_days: '', run_retention_days: '30' });
    expect(retentionDraftOf({})).toEqual({ interval_retention_days: '', run_retention_days: '' });
  });
});

describe('toRetentionUpdate', () => {
  it('reads whole days and leaves blanks out (kept forever)', () => {
    expect(toRetentionUpdate({ interval_retention_days: ' 7 ', run_retention_days: '36500' })).toEqual({
      ok: true,
      body: { interval_retention_days: 7, run_retention_days: 36500 },
    });
    expect(toRetentionUpdate({ interval_retention_days: '', run_retention_days: '' })).toEqual({ ok: true, body: {} });
  });
  it('names each setting that is not 1 to 36500 whole days', () => {
    const msg = 'must be a whole number of days from 1 to 36500, or blank to keep forever';
    expect(toRetentionUpdate({ interval_retention_days: '0', run_retention_days: '1.5' })).toEqual({
      ok: false,
      errors: { interval_retention_days: msg, run_retention_days: msg },
    });
    expect(toRetentionUpdate({ interval_retention_days: '36501', run_retention_days: 'a week' })).toEqual({
      ok: false,
      errors: { interval_retention_days: msg, run_retention_days: msg },
    });
  });
});

describe('retentionErrorsOf', () => {
  it('places retention.<name> errors and keeps the others as text', () => {
    expect(
      retentionErrorsOf([
        { field: 'retention.run_retention_days', message: 'must be a whole number of days from 1 to 36500' },
        { field: 'name', message: 'too long' },
      ]),
    ).toEqual({ fields: { run_retention_days: 'must be a whole number of days from 1 to 36500' }, other: ['name: too long'] });
  });
});

describe('retentionText', () => {
  it('says days or forever', () => {
    expect(retentionText(undefined)).toBe('forever');
    expect(retentionText(1)).toBe('1 day');
    expect(retentionText(30)).toBe('30 days');
  });
});

import { intervalText, mapSourceProblem, outcomeTone, sourceBody, syncTone } from './source-form';

describe('sourceBody', () => {
  it('builds the body with the project and the interval in minutes', () => {
    expect(sourceBody({ name: ' nightly ', url: 'https://bucket.example/results/?prefix=a/', interval: '30' }, 'default')).toEqual({
      body: { project: 'default', name: 'nightly', url: 'https://bucket.example/results/?prefix=a/', interval_minutes: 30 },
    });
  });

  it('takes an empty interval as on demand', () => {
    expect(sourceBody({ name: 'a', url: 'http://x/index.tsv', interval: '' }, 'p')).toEqual({
      body: { project: 'p', name: 'a', url: 'http://x/index.tsv', interval_minutes: 0 },
    });
  });

  it('names each field at fault', () => {
    expect(sourceBody({ name: '', url: 'ftp://x', interval: '-5' }, 'p')).toEqual({
      errors: { name: 'is required', url: 'must be an http or https URL', interval: 'must be a whole number of minutes, 0 or more' },
    });
    expect(sourceBody({ name: 'a', url: '', interval: '1.5' }, 'p')).toEqual({
      errors: { url: 'is required', interval: 'must be a whole number of minutes, 0 or more' },
    });
  });
});

describe('mapSourceProblem', () => {
  it('puts known fields on the form, the rest in the summary', () => {
    expect(
      mapSourceProblem([
        { field: 'url', message: 'resolves to a private address' },
        { field: 'interval_minutes', message: 'must be at most 10080' },
        { field: 'url', message: 'has credentials' },
        { field: 'project', message: 'is not yours' },
      ]),
    ).toEqual({
      fields: { url: 'resolves to a private address; has credentials', interval: 'must be at most 10080' },
      other: [{ field: 'project', message: 'is not yours' }],
    });
  });
});

describe('intervalText', () => {
  it('reads minutes the short way', () => {
    expect([0, 15, 60, 90, 1440, 2880].map(intervalText)).toEqual(['on demand', 'every 15 min', 'every 1 h', 'every 90 min', 'every 1 d', 'every 2 d']);
  });
});

describe('tones', () => {
  it('colours syncs and objects by outcome', () => {
    expect((['running', 'succeeded', 'partial', 'failed'] as const).map(syncTone)).toEqual(['info', 'ok', 'warn', 'bad']);
    expect((['imported', 'unchanged', 'skipped', 'failed'] as const).map(outcomeTone)).toEqual(['ok', 'muted', 'warn', 'bad']);
  });
});

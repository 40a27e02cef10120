import { isImportedSource } from './run-source';

describe('isImportedSource', () => {
  it('is true for uploaded and synced documents only', () => {
    expect(['ui', 'api', 'schedule', 'import', 'sync'].map((s) => isImportedSource(s as never))).toEqual([false, false, false, true, true]);
  });
});

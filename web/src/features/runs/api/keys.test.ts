import { runKeys, type RunListKey } from './keys';

describe('runKeys', () => {
  it('puts every read of one run under its detail key', () => {
    expect(runKeys.detail('r')).toEqual(['runs', 'r']);
    for (const k of [runKeys.result('r'), runKeys.fortioResult('r'), runKeys.timeline('r'), runKeys.shards('r'), runKeys.intervals('r'), runKeys.intervals('r', 20)]) {
      expect(k.slice(0, 2)).toEqual(['runs', 'r']);
    }
    expect(runKeys.fortioResult('r')).toEqual(['runs', 'r', 'result', 'fortio']);
  });

  it('keys a capped read of the seconds apart from the full series', () => {
    expect(runKeys.intervals('r')).toEqual(['runs', 'r', 'intervals']);
    expect(runKeys.intervals('r', 20)).toEqual(['runs', 'r', 'intervals', { maxPages: 20 }]);
  });

  it('puts the paged list and the picker under lists()', () => {
    const q: RunListKey = { project: 'p', status: ['completed'], test: '', labels: ['a=b'] };
    expect(runKeys.list(q)).toEqual(['runs', 'list', 'p', { status: ['completed'], test: '', labels: ['a=b'] }]);
    expect(runKeys.completed('p', 30)).toEqual(['runs', 'list', 'p', 'completed', 30]);
    expect(runKeys.compare(['a', 'b'])).toEqual(['runs', 'compare', 'a,b']);
  });
});

import { QueryClient } from '@tanstack/react-query';
import { projectKeys, runKeys, testKeys, type RunListKey } from './query-keys';

// A key is a prefix of another when invalidating the first reaches the second.
const under = (key: readonly unknown[], prefix: readonly unknown[]) => expect(key.slice(0, prefix.length)).toEqual([...prefix]);

describe('runKeys', () => {
  it('puts every read of one run under its detail key', () => {
    expect(runKeys.detail('r')).toEqual(['runs', 'r']);
    for (const k of [runKeys.result('r'), runKeys.fortioResult('r'), runKeys.timeline('r'), runKeys.shards('r'), runKeys.intervals('r'), runKeys.intervals('r', 20)]) {
      under(k, runKeys.detail('r'));
    }
    expect(runKeys.fortioResult('r')).toEqual(['runs', 'r', 'result', 'fortio']);
  });

  it('keys a capped read of the seconds, and their windows, apart from the full series', () => {
    expect(runKeys.intervals('r')).toEqual(['runs', 'r', 'intervals']);
    expect(runKeys.intervals('r', 20)).toEqual(['runs', 'r', 'intervals', { maxPages: 20, step: 1 }]);
    expect(runKeys.intervals('r', undefined, 6)).toEqual(['runs', 'r', 'intervals', { maxPages: undefined, step: 6 }]);
    expect(runKeys.intervals('r', undefined, 1)).toEqual(runKeys.intervals('r'));
  });

  it('puts the paged list and the picker under lists()', () => {
    const q: RunListKey = { project: 'p', status: ['completed'], test: '', labels: ['a=b'] };
    expect(runKeys.lists()).toEqual(['runs', 'list']);
    expect(runKeys.list(q)).toEqual(['runs', 'list', 'p', { status: ['completed'], test: '', labels: ['a=b'] }]);
    expect(runKeys.completed('p', 30)).toEqual(['runs', 'list', 'p', 'completed', 30]);
    expect(runKeys.compare(['a', 'b'])).toEqual(['runs', 'compare', 'a,b']);
  });
});

describe('testKeys', () => {
  it('puts a test’s runs and trend under its detail key', () => {
    expect(testKeys.detail('t')).toEqual(['tests', 't']);
    expect(testKeys.runs('t')).toEqual(['tests', 't', 'runs']);
    expect(testKeys.trend('t')).toEqual(['tests', 't', 'trend']);
  });

  it('keeps the menu apart from the paged list, both under lists()', () => {
    expect(testKeys.lists()).toEqual(['tests', 'list']);
    expect(testKeys.list('p')).toEqual(['tests', 'list', 'p']);
    expect(testKeys.menu('p')).toEqual(['tests', 'list', 'p', 'menu']);
    expect(testKeys.menu('p')).not.toEqual(testKeys.list('p'));
    under(testKeys.menu('p'), testKeys.list('p'));
    under(testKeys.list('p'), testKeys.lists());
  });

  it('reaches the menu and the paged list, and no single test, with one invalidation of lists()', async () => {
    const qc = new QueryClient();
    qc.setQueryData(testKeys.list('p'), { pages: [], pageParams: [] });
    qc.setQueryData(testKeys.menu('p'), { items: [] });
    qc.setQueryData(testKeys.detail('t'), { id: 't' });
    await qc.invalidateQueries({ queryKey: testKeys.lists() });
    expect(qc.getQueryState(testKeys.list('p'))?.isInvalidated).toBe(true);
    expect(qc.getQueryState(testKeys.menu('p'))?.isInvalidated).toBe(true);
    expect(qc.getQueryState(testKeys.detail('t'))?.isInvalidated).toBe(false);
  });
});

describe('projectKeys', () => {
  it('puts the agent pools and the remote write under the project', () => {
    expect(projectKeys.detail('p')).toEqual(['projects', 'p']);
    under(projectKeys.detail('p'), projectKeys.all);
    under(projectKeys.agentPools('p'), projectKeys.detail('p'));
    under(projectKeys.remoteWrite('p'), projectKeys.detail('p'));
    expect(projectKeys.agentPools('p')).not.toEqual(projectKeys.remoteWrite('p'));
  });
});

import type { RunStatus } from './run-status';

/**
 * The query keys that more than one feature reads or writes, in one home.
 * Every query and invalidation of a run's or a stored test's data builds its
 * key here: the runs feature reads runs and stored tests (the filter menu,
 * the New run form), and the tests feature starts runs and lists a test's
 * runs, so both import the same factory and cannot drift apart.
 */

/** The server-side part of the runs list filters, as its query key holds them. */
export interface RunListKey {
  project: string;
  status: RunStatus[];
  /** A stored test's id, or '' for any. */
  test: string;
  labels: string[];
}

/**
 * runKeys: everything about one run sits under detail(id), so invalidating it
 * reaches the run's result, seconds and shards too; every list of runs sits
 * under lists(), so a new run or import refreshes each of them.
 */
export const runKeys = {
  all: ['runs'] as const,
  lists: () => [...runKeys.all, 'list'] as const,
  /** The runs page's paged list, per server-side filter. */
  list: (q: RunListKey) => [...runKeys.lists(), q.project, { status: q.status, test: q.test, labels: q.labels }] as const,
  /** The compare page's picker: the newest completed runs of a project. */
  completed: (project: string, limit: number) => [...runKeys.lists(), project, 'completed', limit] as const,
  compare: (ids: string[]) => [...runKeys.all, 'compare', ids.join(',')] as const,
  detail: (id: string) => [...runKeys.all, id] as const,
  result: (id: string) => [...runKeys.detail(id), 'result'] as const,
  fortioResult: (id: string) => [...runKeys.result(id), 'fortio'] as const,
  timeline: (id: string) => [...runKeys.detail(id), 'timeline'] as const,
  shards: (id: string) => [...runKeys.detail(id), 'shards'] as const,
  /** A run's per-shard seconds (GET /runs/{run}/shards/intervals), which the live stream also writes. */
  /** A step above 1 keys an ended run's overview in windows apart from the live per-second rows. */
  shardIntervals: (id: string, step = 1) =>
    step > 1 ? ([...runKeys.detail(id), 'shard-intervals', step] as const) : ([...runKeys.detail(id), 'shard-intervals'] as const),
  /**
   * A run's seconds. The run page's full series, which the live stream also
   * writes, is intervals(id); a read capped at maxPages pages (the compare
   * page's overlay), or in windows of step seconds (an ended long run's
   * overview), has a key of its own under it.
   */
  intervals: (id: string, maxPages?: number, step = 1) =>
    maxPages === undefined && step === 1
      ? ([...runKeys.detail(id), 'intervals'] as const)
      : ([...runKeys.detail(id), 'intervals', { maxPages, step }] as const),
};

/**
 * testKeys: a stored test is detail(id), with its recent runs and trend under
 * it; every list of tests sits under lists(), so saving or deleting a test
 * refreshes each of them.
 */
export const testKeys = {
  all: ['tests'] as const,
  lists: () => [...testKeys.all, 'list'] as const,
  /** The tests page's paged list of a project. */
  list: (project: string) => [...testKeys.lists(), project] as const,
  /**
   * The runs page's filter menu: one large page of a project's newest tests,
   * not pages like list(project), so under a key of its own.
   * It sits under list(project), so invalidating lists() or list(project)
   * reaches both.
   */
  menu: (project: string) => [...testKeys.list(project), 'menu'] as const,
  detail: (id: string) => [...testKeys.all, id] as const,
  /** The test's most recent runs, as its page lists them. */
  runs: (id: string) => [...testKeys.detail(id), 'runs'] as const,
  trend: (id: string) => [...testKeys.detail(id), 'trend'] as const,
};

/**
 * projectKeys: a project is detail(slug), with the settings that have
 * endpoints of their own under it, so invalidating detail(slug) or all
 * reaches them too. The settings page reads and writes them; the agents
 * page reads the project's agent pools.
 */
export const projectKeys = {
  all: ['projects'] as const,
  detail: (slug: string) => [...projectKeys.all, slug] as const,
  agentPools: (slug: string) => [...projectKeys.detail(slug), 'agent-pools'] as const,
  remoteWrite: (slug: string) => [...projectKeys.detail(slug), 'remote-write'] as const,
};

import type { RunFilters } from '../utils/run-filters';

/** The server-side part of the runs list filters, as its query key holds them. */
export type RunListKey = Pick<RunFilters, 'status' | 'test' | 'labels'> & { project: string };

/**
 * runKeys is the one home of the runs feature's query keys: every query and
 * invalidation of a run's data builds its key here. Everything about one run
 * sits under detail(id), so invalidating it reaches the run's result, seconds
 * and shards too; every list sits under lists(), so a new run or import
 * refreshes each of them. tests/api/run-test.ts, outside this feature, writes
 * the same detail(id) and invalidates lists().
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
  /**
   * A run's seconds. The run page's full series, which the live stream also
   * writes, is intervals(id); a read capped at maxPages pages (the compare
   * page's overlay) has a key of its own under it.
   */
  intervals: (id: string, maxPages?: number) =>
    maxPages === undefined ? ([...runKeys.detail(id), 'intervals'] as const) : ([...runKeys.detail(id), 'intervals', { maxPages }] as const),
};

import { api, unwrap } from '../api-client';
import type { operations } from '../api-schema';

/** The query of GET /tests: a project, the previous page's next_cursor, a page size. */
export type TestListQuery = NonNullable<operations['listTests']['parameters']['query']>;

/**
 * listTests fetches one page of stored tests, newest first. The tests page
 * pages through them under testKeys.list; the runs feature's menus read one
 * large page under testKeys.menu (lib/query-keys.ts).
 */
export async function listTests(query: TestListQuery, signal?: AbortSignal) {
  return unwrap(await api.GET('/tests', { params: { query }, signal }));
}

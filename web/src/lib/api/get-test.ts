import { api, unwrap } from '../api-client';

/**
 * getTest fetches one stored test. The tests feature shows it on the test's
 * page; the runs feature prefills the New run form from it. Each builds its
 * query on this fetcher and testKeys.detail (lib/query-keys.ts).
 */
export async function getTest(testId: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/tests/{test}', { params: { path: { test: testId } }, signal }));
}

import { api, unwrap, type Schemas } from '../api-client';

/**
 * createTest stores a test definition. The tests feature's New test page and
 * the New run form's "save as a test" both call it.
 */
export async function createTest(body: Schemas['TestCreate']) {
  return unwrap(await api.POST('/tests', { body }));
}

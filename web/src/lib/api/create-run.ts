import { api, unwrap, type Schemas } from '../api-client';

/**
 * createRun starts a run: the New run form's, or a stored test's from its
 * page. With an Idempotency-Key, a repeated submit of the same body answers
 * with the run the first one made instead of a second run.
 */
export async function createRun({ body, idempotencyKey }: { body: Schemas['RunCreate']; idempotencyKey?: string }) {
  const header = idempotencyKey === undefined ? undefined : { 'Idempotency-Key': idempotencyKey };
  return unwrap(await api.POST('/runs', { body, params: { header } }));
}

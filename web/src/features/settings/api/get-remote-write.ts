import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '@/lib/api-client';
import { projectKeys } from '@/lib/query-keys';

/**
 * getRemoteWrite fetches the project's remote-write endpoint without its
 * secrets, or null when the project has none (the API answers 404).
 */
export async function getRemoteWrite(slug: string, signal?: AbortSignal) {
  try {
    return unwrap(await api.GET('/projects/{project}/remote-write', { params: { path: { project: slug } }, signal }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** useRemoteWrite reads it; project admins only, so others do not ask. */
export function useRemoteWrite(slug: string, enabled: boolean) {
  return useQuery(
    queryOptions({ queryKey: projectKeys.remoteWrite(slug), queryFn: ({ signal }) => getRemoteWrite(slug, signal), enabled }),
  );
}

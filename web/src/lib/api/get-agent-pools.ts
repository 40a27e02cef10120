import { api, unwrap } from '../api-client';

/**
 * getAgentPools fetches the agent pools a project's runs are restricted to
 * (empty: every agent); any member may read them. The settings page shows
 * and, for org admins, edits them; the agents page marks which agents the
 * project may use. Each builds its query on this fetcher and
 * projectKeys.agentPools (lib/query-keys.ts).
 */
export async function getAgentPools(slug: string, signal?: AbortSignal) {
  return unwrap(await api.GET('/projects/{project}/agent-pools', { params: { path: { project: slug } }, signal }));
}

import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';

/** The CSV download of a run's timeline. */
export const runTimelineCsvUrl = (runId: string) => `/api/v1/runs/${encodeURIComponent(runId)}/timeline?format=csv`;

/** getRunTimeline returns the run's request sample, or null while the run has not ended (409). */
export async function getRunTimeline(runId: string): Promise<Schemas['RunTimeline'] | null> {
  const r = await api.GET('/runs/{run}/timeline', { params: { path: { run: runId }, query: { format: 'json' } } });
  if (r.response.status === 409) return null;
  return unwrap(r) as Schemas['RunTimeline'];
}

/** A timeline never changes once stored; ask only when the run has ended. */
export const runTimelineQuery = (runId: string, enabled: boolean) =>
  queryOptions({ queryKey: runKeys.timeline(runId), queryFn: () => getRunTimeline(runId), enabled, staleTime: Infinity });

export function useRunTimeline(runId: string, enabled: boolean) {
  return useQuery(runTimelineQuery(runId, enabled));
}

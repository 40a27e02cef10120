import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';

/** How many recent runs the picker offers. */
const pickLimit = 30;

export async function listCompletedRuns(project: string) {
  return unwrap(await api.GET('/runs', { params: { query: { project, status: ['completed'], limit: pickLimit } } }));
}

export function completedRunsQuery(project: string) {
  return queryOptions({ queryKey: ['runs', 'list', project, 'completed', pickLimit], queryFn: () => listCompletedRuns(project) });
}

export function useCompletedRuns(project: string) {
  return useQuery(completedRunsQuery(project));
}

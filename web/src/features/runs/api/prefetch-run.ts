import type { QueryClient } from '@tanstack/react-query';
import type { Schemas } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { isTerminal } from '@/lib/run-status';
import { isImported } from '../utils/imported';
import { readParam, viewParams } from '../utils/view-params';
import { runQuery } from './get-run';
import { runFortioHistogramQuery } from './get-run-fortio-result';
import { runResultQuery } from './get-run-result';
import { runTimelineQuery } from './get-run-timeline';
import { runIntervalsQuery } from './list-run-intervals';
import { runShardIntervalsQuery } from './list-run-shard-intervals';
import { seriesStep } from '../utils/series-step';

/**
 * prefetchEndedRun asks for what an ended native run's page shows below its
 * charts (the histogram and the request timeline) as soon as the run is
 * known to have ended, not once the charts above them have drawn.
 */
export function prefetchEndedRun(qc: QueryClient, run: Pick<Schemas['Run'], 'id' | 'status' | 'source'>): void {
  if (!isTerminal(run.status) || isImported(run)) return;
  void qc.prefetchQuery(runFortioHistogramQuery(run.id));
  void qc.prefetchQuery(runTimelineQuery(run.id, true));
}

/**
 * prefetchRunPage starts the run page's reads at navigation (the route's
 * loader in app/router.tsx), beside the sign-in check and the page's own
 * code rather than after both. The run's result and histogram, on its first
 * screen, are asked for beside the run itself, before it says whether it has
 * ended: a run that has not answers 409 to both, and what they left in the
 * cache is dropped once the run says so, so that the page asks again when it
 * ends. Then its seconds, as wide as the run says its rows are (seriesStep),
 * the per-shard seconds too when the link has the per-agent lines on, and
 * what prefetchEndedRun reads. The page's queries find them in the cache
 * under the same keys. Errors are left to the page, which asks again and
 * shows them.
 */
export function prefetchRunPage(qc: QueryClient, runId: string, search: URLSearchParams): void {
  const perAgent = readParam(search, viewParams.agents, ['on', 'off'] as const) === 'on';
  const early = Promise.allSettled([
    qc.prefetchQuery(runResultQuery(runId, true)),
    qc.prefetchQuery({ ...runFortioHistogramQuery(runId), retry: false }),
  ]);
  void qc
    .fetchQuery(runQuery(runId, true))
    .then((run) => {
      const step = seriesStep(run);
      if (!isImported(run)) void qc.prefetchQuery(runIntervalsQuery(runId, { step }));
      if (perAgent) void qc.prefetchQuery(runShardIntervalsQuery(runId, step));
      if (isTerminal(run.status)) {
        prefetchEndedRun(qc, run);
        return;
      }
      void early.then(() => {
        qc.removeQueries({ queryKey: runKeys.result(runId), exact: true });
        qc.removeQueries({ queryKey: runKeys.fortioResult(runId), exact: true });
      });
    })
    .catch(() => undefined);
}

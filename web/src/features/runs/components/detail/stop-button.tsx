import { ApiError } from '@/lib/api-client';
import { useStopRun } from '../../api/stop-run';

/** StopButton stops a run that has not ended; the answer updates the run in the cache. */
export function StopButton({ runId }: { runId: string }) {
  const stop = useStopRun(runId);
  const message =
    stop.error instanceof ApiError
      ? (stop.error.problem.detail ?? stop.error.problem.title)
      : stop.error
        ? stop.error.message
        : undefined;
  return (
    <span className="row">
      <button className="danger" data-testid="stop-run" disabled={stop.isPending} onClick={() => stop.mutate()}>
        {stop.isPending ? 'Stopping…' : 'Stop run'}
      </button>
      {message && (
        <span className="field-error" role="alert">
          Could not stop: {message}
        </span>
      )}
    </span>
  );
}

import { useEffect, useRef, useState } from 'react';
import { ApiError } from '@/lib/api-client';
import { useStopRun } from '../../api/stop-run';

/**
 * StopButton stops a run that has not ended, after a confirmation: "Stop run" asks "Stop this run?", and
 * "Stop now" stops it while "Keep running" (or Escape) goes back. Focus moves into the question and back to
 * the button. The answer updates the run in the cache.
 */
export function StopButton({ runId }: { runId: string }) {
  const stop = useStopRun(runId);
  const [asking, setAsking] = useState(false);
  const keepRef = useRef<HTMLButtonElement>(null);
  const stopRef = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  useEffect(() => {
    if (asking) keepRef.current?.focus();
    else if (returnFocus.current) {
      returnFocus.current = false;
      stopRef.current?.focus();
    }
  }, [asking]);
  const keep = () => {
    returnFocus.current = true;
    setAsking(false);
  };
  const message =
    stop.error instanceof ApiError
      ? (stop.error.problem.detail ?? stop.error.problem.title)
      : stop.error
        ? stop.error.message
        : undefined;
  return (
    <span className="row">
      {asking ? (
        <span
          className="row stop-confirm"
          role="group"
          aria-labelledby={`stop-q-${runId}`}
          onKeyDown={(e) => {
            if (e.key === 'Escape') keep();
          }}
        >
          <span id={`stop-q-${runId}`}>Stop this run? Its shards end now and it keeps a partial result.</span>
          <button
            className="danger"
            data-testid="stop-run-confirm"
            onClick={() => {
              setAsking(false);
              stop.mutate();
            }}
          >
            Stop now
          </button>
          <button ref={keepRef} onClick={keep}>
            Keep running
          </button>
        </span>
      ) : (
        <button ref={stopRef} className="danger" data-testid="stop-run" disabled={stop.isPending} onClick={() => setAsking(true)}>
          {stop.isPending ? 'Stopping…' : 'Stop run'}
        </button>
      )}
      {message && (
        <span className="field-error" role="alert">
          Could not stop: {message}
        </span>
      )}
    </span>
  );
}

import { useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useCreateRun } from '../../api/create-run';
import { newIdempotencyKey } from '../../utils/idempotency-key';
import { redactedPaths, runAgainBody } from '../../utils/run-again';

function errorText(err: Error | null): string | undefined {
  if (err instanceof ApiError) {
    const fields = (err.problem.errors ?? []).map((e: Schemas['FieldError']) => `${e.field}: ${e.message}`);
    return [err.problem.detail ?? err.problem.title, ...fields].filter(Boolean).join('; ');
  }
  return err?.message;
}

/**
 * RunAgainButton starts a new run with this run's spec, name, labels and
 * thresholds, then opens it. A spec whose secrets the API did not store
 * (REDACTED in their place) asks first, naming where they were.
 */
export function RunAgainButton({ run }: { run: Schemas['Run'] }) {
  const create = useCreateRun();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  // One key per page: a double click starts one run.
  const key = useRef(newIdempotencyKey());
  const redacted = redactedPaths(run.spec);
  const start = () =>
    create.mutate(
      { body: runAgainBody(run), idempotencyKey: key.current },
      { onSuccess: (created) => void navigate(`/runs/${created.id}`) },
    );
  return (
    <span className="row">
      {confirming ? (
        <span className="row" role="group" aria-label="Confirm run again">
          <span>
            Its secrets were not stored ({redacted.map((p) => `spec.${p}`).join(', ')}): the new run sends REDACTED in their place.
          </span>
          <button type="button" data-testid="confirm-run-again" disabled={create.isPending} onClick={start}>
            {create.isPending ? 'Starting…' : 'Run anyway'}
          </button>
          <button type="button" disabled={create.isPending} onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button
          type="button"
          data-testid="run-again"
          disabled={create.isPending}
          onClick={() => (redacted.length > 0 ? setConfirming(true) : start())}
        >
          {create.isPending ? 'Starting…' : 'Run again'}
        </button>
      )}
      {create.error && (
        <span className="field-error" role="alert">
          Could not start: {errorText(create.error)}
        </span>
      )}
    </span>
  );
}

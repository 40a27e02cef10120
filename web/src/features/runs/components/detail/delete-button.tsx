import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '@/lib/api-client';
import type { Schemas } from '@/lib/api-client';
import { useDeleteRun, usePinRun } from '../../api/delete-run';

function errorText(err: Error | null): string | undefined {
  if (err instanceof ApiError) return err.problem.detail ?? err.problem.title;
  return err?.message;
}

/**
 * DeleteButton deletes a finished run after a confirmation. A pinned run is
 * deleted with force once confirmed; a run the API refuses as a baseline
 * (409) offers "Delete anyway", which forces it.
 */
export function DeleteButton({ run }: { run: Schemas['Run'] }) {
  const [confirming, setConfirming] = useState(false);
  const del = useDeleteRun(run.id);
  const navigate = useNavigate();
  const conflict = del.error instanceof ApiError && del.error.status === 409;
  const remove = (force: boolean) => del.mutate(force, { onSuccess: () => void navigate('/runs') });
  if (!confirming) {
    return (
      <button className="danger" data-testid="delete-run" onClick={() => setConfirming(true)}>
        Delete run
      </button>
    );
  }
  return (
    <span className="row" role="group" aria-label="Confirm delete">
      <span>{run.pinned ? 'This run is pinned. Delete it and all its data?' : 'Delete this run and all its data?'}</span>
      <button className="danger" data-testid="confirm-delete-run" disabled={del.isPending} onClick={() => remove(run.pinned || conflict)}>
        {del.isPending ? 'Deleting…' : conflict ? 'Delete anyway' : 'Delete'}
      </button>
      <button disabled={del.isPending} onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {del.error && (
        <span className="field-error" role="alert">
          {conflict ? errorText(del.error) : `Could not delete: ${errorText(del.error)}`}
        </span>
      )}
    </span>
  );
}

/** PinButton pins or unpins a run: a pinned run is kept whatever its project's retention. */
export function PinButton({ run }: { run: Schemas['Run'] }) {
  const pin = usePinRun(run.id);
  return (
    <span className="row">
      <button data-testid="pin-run" disabled={pin.isPending} onClick={() => pin.mutate(!run.pinned)}>
        {run.pinned ? 'Unpin' : 'Pin'}
      </button>
      {pin.error && (
        <span className="field-error" role="alert">
          Could not {run.pinned ? 'unpin' : 'pin'}: {errorText(pin.error)}
        </span>
      )}
    </span>
  );
}

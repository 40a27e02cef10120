import { useState } from 'react';
import { ApiError } from '@/lib/api-client';
import { useDeleteSyncSource } from '../api/delete-sync-source';

/** DeleteSourceButton deletes a source after a confirmation; its imported runs stay. */
export function DeleteSourceButton({ sourceId, name, onDeleted }: { sourceId: string; name: string; onDeleted?: () => void }) {
  const del = useDeleteSyncSource();
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <button type="button" className="danger" onClick={() => setConfirming(true)} aria-label={`Delete ${name}…`}>
        Delete…
      </button>
    );
  }
  return (
    <span className="sync-confirm" role="group" aria-label={`Confirm delete of ${name}`}>
      Delete {name} and its sync history? Its imported runs stay.
      <button type="button" className="danger" disabled={del.isPending} onClick={() => del.mutate(sourceId, { onSuccess: onDeleted })}>
        {del.isPending ? 'Deleting…' : 'Delete'}
      </button>
      <button type="button" onClick={() => setConfirming(false)} autoFocus>
        Keep
      </button>
      {del.error && (
        <span className="field-error" role="alert">
          {del.error instanceof ApiError ? (del.error.problem.detail ?? del.error.problem.title) : 'Cannot reach the API'}
        </span>
      )}
    </span>
  );
}

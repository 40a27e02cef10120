import { ApiError } from '@/lib/api-client';
import { useRunSyncSource } from '../api/run-sync-source';

/** SyncNowButton starts a sync of a source; disabled while one runs. A 409 or other refusal shows under it. */
export function SyncNowButton({ sourceId, name, running }: { sourceId: string; name: string; running: boolean }) {
  const run = useRunSyncSource();
  const err = run.error;
  return (
    <span className="sync-now">
      <button type="button" disabled={running || run.isPending} onClick={() => run.mutate(sourceId)} aria-label={`Sync ${name} now`}>
        {running ? 'Syncing…' : run.isPending ? 'Starting…' : 'Sync now'}
      </button>
      {err && (
        <span className="field-error" role="alert">
          {err instanceof ApiError ? (err.problem.detail ?? err.problem.title) : 'Cannot reach the API'}
        </span>
      )}
    </span>
  );
}

import type { Schemas } from '@/lib/api-client';
import { formatCount } from '@/lib/format';
import { outcomeTone, syncTone } from '../utils/source-form';

type SyncRun = Schemas['SyncRun'];

export function SyncStatusBadge({ status }: { status: SyncRun['status'] }) {
  return (
    <span className={`badge ${syncTone(status)}`} data-testid="sync-status">
      {status}
    </span>
  );
}

export function OutcomeBadge({ outcome }: { outcome: Schemas['SyncObject']['outcome'] }) {
  return <span className={`badge ${outcomeTone(outcome)}`}>{outcome}</span>;
}

/** SyncCounts is a sync's tally: imported, unchanged, skipped, failed. */
export function SyncCounts({ run }: { run: SyncRun }) {
  return (
    <span className="sync-counts" data-testid="sync-counts">
      <span title="imported">{formatCount(run.imported)} imported</span> · <span title="unchanged">{formatCount(run.unchanged)} unchanged</span> ·{' '}
      <span title="skipped">{formatCount(run.skipped)} skipped</span> ·{' '}
      <span className={run.failed > 0 ? 'sync-bad bad-figure' : undefined}>{formatCount(run.failed)} failed</span>
    </span>
  );
}

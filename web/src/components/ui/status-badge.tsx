import { statusTone, verdictTone, type RunStatus, type Verdict } from '@/lib/run-status';

export function StatusBadge({ status, testId }: { status: RunStatus; testId?: string }) {
  return (
    <span className={`badge ${statusTone(status)}`} data-testid={testId}>
      {status}
    </span>
  );
}

/** VerdictBadge shows a run's verdict; a dash when it has none (no thresholds, or not finished). */
export function VerdictBadge({ verdict }: { verdict: Verdict | undefined }) {
  if (!verdict) return <span className="muted">–</span>;
  return <span className={`badge ${verdictTone(verdict)}`}>{verdict}</span>;
}

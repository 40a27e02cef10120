import type { Schemas } from '@/lib/api-client';
import { statusTone, verdictTone } from '../utils/run-status';

export function StatusBadge({ status }: { status: Schemas['RunStatus'] }) {
  return <span className={`badge ${statusTone(status)}`}>{status}</span>;
}

export function VerdictBadge({ verdict }: { verdict: Schemas['Run']['verdict'] }) {
  if (!verdict) return <span className="muted">–</span>;
  return <span className={`badge ${verdictTone(verdict)}`}>{verdict}</span>;
}

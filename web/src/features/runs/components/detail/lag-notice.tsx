import type { Schemas } from '@/lib/api-client';
import { formatDuration } from '@/lib/format';
import { lagWarning } from '../../utils/measurement';

/**
 * LagNotice warns that the load generator fell behind its schedule: lag (intended to actual send) rivals service
 * time (lagWarning, docs/dashboard.md). Nothing otherwise.
 */
export function LagNotice({ result }: { result: Schemas['RunResult'] }) {
  const w = lagWarning(result);
  if (!w) return null;
  return (
    <div className="run-notice warn" role="note" aria-label="Lag rivals service time">
      <strong>
        The load generator fell behind: lag p99 {formatDuration(w.lagP99Us)} against service p99 {formatDuration(w.serviceP99Us)}.
      </strong>
      <div className="detail">
        Requests left well after their schedule, so response time counts the generator&apos;s queue as well as the target.
        Add connections or agents, or lower the rate, and run again; until then read service time for the target.
      </div>
    </div>
  );
}

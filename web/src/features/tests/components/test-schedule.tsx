import type { Schemas } from '@/lib/api-client';
import { formatTime, formatUntil } from '@/lib/format';
import { useNow } from '@/lib/use-now';
import { defaultTimezone } from '../utils/test-form';

/** TestSchedule says when a test runs by itself: its cron, its zone and the next run, relative and absolute. */
export function TestSchedule({ test: t }: { test: Schemas['Test'] }) {
  const now = useNow(30_000, Boolean(t.schedule));
  if (!t.schedule) {
    return (
      <div className="test-schedule muted" data-testid="test-schedule">
        Not scheduled.
      </div>
    );
  }
  return (
    <div className="test-schedule" data-testid="test-schedule">
      <span>
        Schedule <code>{t.schedule}</code>
      </span>
      <span>{t.timezone || defaultTimezone}</span>
      {t.next_run_at && (
        <span data-testid="test-next-run">
          next run {formatUntil(t.next_run_at, now)} ({formatTime(t.next_run_at)})
        </span>
      )}
    </div>
  );
}

/** ScheduleCell is a test's schedule in the tests list: the cron and its zone, or — without one. */
export function ScheduleCell({ test: t }: { test: Schemas['Test'] }) {
  if (!t.schedule) return <span className="muted">—</span>;
  return (
    <span title={t.next_run_at ? `next run ${formatTime(t.next_run_at)}` : undefined}>
      <code>{t.schedule}</code> <span className="muted">{t.timezone || defaultTimezone}</span>
    </span>
  );
}

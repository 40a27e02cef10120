import type { Schemas } from '@/lib/api-client';
import { formatSeconds } from '@/lib/format';
import { plannedSeconds } from '../../utils/duration';

interface Props {
  run: Schemas['Run'];
  now: number;
}

const waiting: Partial<Record<Schemas['RunStatus'], string>> = {
  queued: 'Queued: waiting for agents.',
  dispatching: 'Dispatching shards to agents…',
  stopping: 'Stopping: agents are sending their last figures.',
};

/** LivePanel shows how far a run that has not ended has come: time to its deadline and its shards. */
export function LivePanel({ run, now }: Props) {
  const planned = plannedSeconds(run.spec);
  const startAt = run.start_at ? Date.parse(run.start_at) : NaN;
  const elapsed = Number.isNaN(startAt) ? undefined : (now - startAt) / 1000;
  const started = elapsed !== undefined && elapsed >= 0;
  const share = planned !== undefined && started ? Math.min(1, elapsed / planned) : 0;

  let text: string;
  if (elapsed === undefined) text = waiting[run.status] ?? 'Waiting to start…';
  else if (!started) text = `Starting in ${formatSeconds(Math.ceil(-elapsed))}`;
  else if (planned === undefined) text = `${formatSeconds(Math.floor(elapsed))} elapsed`;
  else {
    const left = Math.max(0, planned - elapsed);
    text = `${formatSeconds(Math.floor(Math.min(elapsed, planned)))} of ${formatSeconds(planned)}, ${left > 0 ? `${formatSeconds(Math.ceil(left))} left` : 'finishing'}`;
  }
  if (started && run.status === 'stopping') text += ' (stopping)';
  const endsBy = run.spec.count ? `${run.spec.count.toLocaleString('en-US')} calls` : run.spec.until_stopped ? 'until stopped' : undefined;

  return (
    <section className="card stack" style={{ gap: 10 }} aria-label="Progress">
      <div className="spread">
        <strong>{text}</strong>
        <span className="muted">
          {run.shard_count > 0 ? `${run.shard_count} shard${run.shard_count === 1 ? '' : 's'}` : 'no shards yet'}
          {endsBy && ` · runs ${endsBy}`}
        </span>
      </div>
      {planned !== undefined && (
        <div
          className="progress"
          role="progressbar"
          aria-label="Run progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(share * 100)}
        >
          <div style={{ width: `${share * 100}%` }} />
        </div>
      )}
      {run.degraded && (
        <div className="run-notice warn" role="alert">
          A shard was lost: its agent stopped answering. The figures keep what it sent up to its last snapshot; the other shards run on.
        </div>
      )}
    </section>
  );
}

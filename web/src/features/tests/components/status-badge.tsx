import type { Schemas } from '@/lib/api-client';

const tone: Record<Schemas['RunStatus'], string> = {
  queued: 'muted',
  dispatching: 'info',
  running: 'info',
  stopping: 'warn',
  completed: 'ok',
  failed: 'bad',
  canceled: 'muted',
};

export function StatusBadge({ status }: { status: Schemas['RunStatus'] }) {
  return <span className={`badge ${tone[status]}`}>{status}</span>;
}

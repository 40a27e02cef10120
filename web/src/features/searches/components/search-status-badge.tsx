import type { Schemas } from '@/lib/api-client';

const tone: Record<Schemas['SearchStatus'], string> = { running: 'muted', completed: 'ok', canceled: 'muted', failed: 'bad' };

export function SearchStatusBadge({ status }: { status: Schemas['SearchStatus'] }) {
  return <span className={`badge ${tone[status]}`}>{status}</span>;
}

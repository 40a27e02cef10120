import { SyncSourcesPage } from '@/features/sync/components/sync-sources-page';

export function Component() {
  return <SyncSourcesPage />;
}

import { useProjectRole } from '@/features/auth/api/get-me';
import { SyncSourcesPage } from '@/features/sync/components/sync-sources-page';
import { useProject } from '@/lib/project';

export function Component() {
  const role = useProjectRole(useProject());
  return <SyncSourcesPage role={role} />;
}

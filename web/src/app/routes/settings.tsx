import { useOrgAdmin, useProjectRole } from '@/features/auth/api/get-me';
import { SettingsPage } from '@/features/settings/components/settings-page';
import { useProject } from '@/lib/project';

export function Component() {
  const project = useProject();
  const role = useProjectRole(project);
  const orgAdmin = useOrgAdmin();
  return <SettingsPage key={project} role={role} orgAdmin={orgAdmin} />;
}

import { useProjectRole } from '@/features/auth/api/get-me';
import { EchoProfilesPage } from '@/features/echo-profiles/components/echo-profiles-page';
import { useProject } from '@/lib/project';

export function Component() {
  const project = useProject();
  const role = useProjectRole(project);
  return <EchoProfilesPage key={project} role={role} />;
}

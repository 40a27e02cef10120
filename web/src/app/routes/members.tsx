import { useProjectRole } from '@/features/auth/api/get-me';
import { MembersPage } from '@/features/members/components/members-page';
import { useProject } from '@/lib/project';

export function Component() {
  const project = useProject();
  const role = useProjectRole(project);
  return <MembersPage key={project} role={role} />;
}

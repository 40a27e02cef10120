import { AuditPage } from '@/features/audit/components/audit-page';
import { useProjectRole } from '@/features/auth/api/get-me';
import { useProject } from '@/lib/project';

export function Component() {
  const project = useProject();
  const role = useProjectRole(project);
  return <AuditPage key={project} role={role} />;
}

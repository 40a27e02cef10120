import { useProjectRole } from '@/features/auth/api/get-me';
import { SearchesPage } from '@/features/searches/components/searches-page';
import { useProject } from '@/lib/project';

export function Component() {
  const project = useProject();
  const role = useProjectRole(project);
  return <SearchesPage key={project} role={role} />;
}

import { useProjectRole } from '@/features/auth/api/get-me';
import { TokensPage } from '@/features/tokens/components/tokens-page';
import { useProject } from '@/lib/project';

export function Component() {
  const project = useProject();
  const role = useProjectRole(project);
  return <TokensPage key={project} role={role} />;
}

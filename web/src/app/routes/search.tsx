import { useParams } from 'react-router';
import { useProjectRole } from '@/features/auth/api/get-me';
import { SearchView } from '@/features/searches/components/search-view';
import { useProject } from '@/lib/project';

export function Component() {
  const { searchId = '' } = useParams();
  const role = useProjectRole(useProject());
  return <SearchView key={searchId} searchId={searchId} role={role} />;
}

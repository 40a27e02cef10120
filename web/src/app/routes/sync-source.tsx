import { useNavigate, useParams, useSearchParams } from 'react-router';
import { useProjectRole } from '@/features/auth/api/get-me';
import { SourceDetail } from '@/features/sync/components/source-detail';
import { useProject } from '@/lib/project';

export function Component() {
  const { sourceId = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const role = useProjectRole(useProject());
  return (
    <SourceDetail
      key={sourceId}
      sourceId={sourceId}
      selected={params.get('run') ?? undefined}
      onSelect={(id) => navigate(`/sync/${sourceId}?run=${encodeURIComponent(id)}`, { replace: true })}
      onDeleted={() => navigate('/sync', { replace: true })}
      role={role}
    />
  );
}

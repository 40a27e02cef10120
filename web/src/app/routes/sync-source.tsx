import { useNavigate, useParams, useSearchParams } from 'react-router';
import { SourceDetail } from '@/features/sync/components/source-detail';

export function Component() {
  const { sourceId = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  return (
    <SourceDetail
      key={sourceId}
      sourceId={sourceId}
      selected={params.get('run') ?? undefined}
      onSelect={(id) => navigate(`/sync/${sourceId}?run=${encodeURIComponent(id)}`, { replace: true })}
      onDeleted={() => navigate('/sync', { replace: true })}
    />
  );
}

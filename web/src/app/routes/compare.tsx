import { useNavigate, useSearchParams } from 'react-router';
import { CompareView } from '@/features/runs/components/compare/compare-view';
import { compareHref, parseIds } from '@/features/runs/utils/ids';

export function Component() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const ids = parseIds(params.get('ids'));
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Compare runs</h1>
      <CompareView ids={ids} onIdsChange={(next) => navigate(compareHref(next))} />
    </div>
  );
}

import { useNavigate, useSearchParams } from 'react-router';
import { CopyLinkButton } from '@/components/ui/copy-link-button';
import { CompareView } from '@/features/runs/components/compare/compare-view';
import { compareHref, parseIds } from '@/features/runs/utils/ids';

export function Component() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const ids = parseIds(params.get('ids'));
  return (
    <div className="stack">
      <div className="spread">
        <h1 style={{ margin: 0 }}>Compare runs</h1>
        {/* The URL holds the runs and the view's toggles: it is the comparison's permalink. */}
        {ids.length >= 2 && <CopyLinkButton />}
      </div>
      <CompareView ids={ids} onIdsChange={(next) => navigate(compareHref(next))} />
    </div>
  );
}

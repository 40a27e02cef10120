import { useQueryClient, type Query, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { isUnreachable } from '@/lib/unreachable';

/** unreachableQueries are the shown queries whose last call got no answer from the API. */
function unreachableQueries(qc: QueryClient): Query[] {
  return qc
    .getQueryCache()
    .findAll({ type: 'active' })
    .filter((q) => q.state.status === 'error' && isUnreachable(q.state.error));
}

/**
 * ApiUnreachableBanner says, above any page, that the API cannot be reached
 * while a shown query's last call got no answer. The page keeps what it
 * showed (TanStack Query keeps a query's data when a refetch fails), and
 * Retry asks again for every shown query; the banner goes when they answer.
 */
export function ApiUnreachableBanner() {
  const qc = useQueryClient();
  const [down, setDown] = useState(() => unreachableQueries(qc).length > 0);
  const [retrying, setRetrying] = useState(false);
  useEffect(() => qc.getQueryCache().subscribe(() => setDown(unreachableQueries(qc).length > 0)), [qc]);
  if (!down) return null;
  const retry = async () => {
    setRetrying(true);
    try {
      await qc.refetchQueries({ type: 'active' });
    } finally {
      setRetrying(false);
    }
  };
  return (
    <div className="banner error" role="alert" data-testid="api-unreachable">
      <span>
        <strong>The API cannot be reached.</strong> What this page shows may be out of date; check that barrage-api is running, then retry.
      </span>
      <button type="button" onClick={() => void retry()} disabled={retrying}>
        {retrying ? 'Retrying…' : 'Retry'}
      </button>
    </div>
  );
}

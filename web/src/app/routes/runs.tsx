import { useEffect } from 'react';
import { RunsList } from '@/features/runs/components/list/runs-list';

export function Component() {
  usePrefetchRunPage();
  return <RunsList />;
}

/**
 * usePrefetchRunPage loads the run page's code once the list is up and the
 * browser is idle, so that a click on a run waits only for the run's reads.
 */
function usePrefetchRunPage() {
  useEffect(() => {
    const load = () => void import('./run');
    if (typeof requestIdleCallback !== 'function') {
      const t = setTimeout(load, 500);
      return () => clearTimeout(t);
    }
    const id = requestIdleCallback(load, { timeout: 2000 });
    return () => cancelIdleCallback(id);
  }, []);
}

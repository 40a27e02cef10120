import { RunsList } from '@/features/runs/components/list/runs-list';

export function Component() {
  return <RunsList />;
}

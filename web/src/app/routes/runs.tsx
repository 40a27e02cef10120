import { RunsList } from '@/features/runs/components/runs-list';

export function Component() {
  return <RunsList />;
}

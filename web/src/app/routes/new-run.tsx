import { NewRunPage } from '@/features/runs/components/new-run-page';

export function Component() {
  return <NewRunPage />;
}

import { NewRunPage } from '@/features/runs/components/new/new-run-page';

export function Component() {
  return <NewRunPage />;
}

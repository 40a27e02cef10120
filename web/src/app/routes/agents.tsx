import { AgentsPage } from '@/features/agents/components/agents-page';

export function Component() {
  return <AgentsPage />;
}

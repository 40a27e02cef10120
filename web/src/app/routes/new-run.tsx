import { NoAgentsNotice } from '@/features/agents/components/no-agents-notice';
import { NewRunPage } from '@/features/runs/components/new/new-run-page';

export function Component() {
  return <NewRunPage notice={<NoAgentsNotice />} />;
}

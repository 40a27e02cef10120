import { AgentsTable } from '@/features/agents/components/agents-table';

export function Component() {
  return (
    <div className="stack">
      <h1>Agents</h1>
      <AgentsTable />
    </div>
  );
}

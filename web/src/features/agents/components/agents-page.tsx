import { ErrorState, Loading } from '@/components/ui/states';
import { useProject } from '@/lib/project';
import { useAgentPools } from '../api/get-agent-pools';
import { useAgents } from '../api/list-agents';
import { AgentsView } from './agents-view';

/**
 * AgentsPage lists the agents that have reported, refreshed as often as
 * they heartbeat, and marks which of them the chosen project may use.
 */
export function AgentsPage() {
  const slug = useProject();
  const agents = useAgents();
  const pools = useAgentPools(slug);
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Agents</h1>
      {agents.isPending || pools.isPending ? (
        <Loading />
      ) : agents.error && !agents.data ? (
        <ErrorState error={agents.error} retry={() => agents.refetch()} />
      ) : pools.error && !pools.data ? (
        <ErrorState error={pools.error} retry={() => pools.refetch()} />
      ) : (
        // The time of the answer, so the page is a pure function of the data.
        <AgentsView items={agents.data.items} now={agents.dataUpdatedAt} project={slug} pools={pools.data.pools} />
      )}
    </div>
  );
}

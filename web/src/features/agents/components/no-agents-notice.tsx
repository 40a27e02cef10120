import { Link } from 'react-router';
import { useAgents } from '../api/list-agents';
import { isLive } from '../utils/agents';

/**
 * NoAgentsNotice tells the New run page, while no agent is live, that a run
 * started now waits in the queue, and how to start an agent (the Agents
 * page's NoAgents has the commands). Nothing shows while the list loads or
 * when it cannot be read.
 */
export function NoAgentsNotice() {
  const agents = useAgents();
  if (!agents.data) return null;
  if (agents.data.items.some((a) => isLive(a, agents.dataUpdatedAt))) return null;
  return (
    <div className="card notice" role="status" data-testid="no-agents-notice">
      <strong>No agent is connected.</strong> A run started now waits in the queue until one is. Start one with{' '}
      <code>barrage-agent serve -nats-url nats://NATS_HOST:4222 -creds agent-1.creds</code>; <Link to="/agents">the Agents page</Link>{' '}
      shows how to create its credentials and lists it within seconds.
    </div>
  );
}

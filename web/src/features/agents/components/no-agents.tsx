/**
 * NoAgents is the page when no agent is online: runs wait in the queue
 * until one is, and this is how to start one (docs/agent.md).
 */
export function NoAgents({ gone }: { gone: number }) {
  return (
    <section className="card stack" aria-labelledby="no-agents-h" data-testid="no-agents">
      <h2 id="no-agents-h" style={{ margin: 0, fontSize: '1.1rem' }}>
        No agents online
      </h2>
      <p style={{ margin: 0 }}>
        Runs wait in the queue until an agent is online to take them.
        {gone > 0 && ` ${gone === 1 ? 'The agent below has' : `The ${gone} agents below have`} stopped reporting.`} Start an agent on a
        machine that reaches the API&apos;s NATS, with credentials of its own:
      </p>
      <pre className="mono agents-howto">
        {'barrage-api agent-credentials create agent-1 -o agent-1.creds\nbarrage-agent serve -nats-url nats://NATS_HOST:4222 -creds agent-1.creds'}
      </pre>
      <p className="muted" style={{ margin: 0 }}>
        Add <code>-pool POOL</code> when creating the credentials to put the agent in a pool. <code>barrage-api serve -all-in-one</code>{' '}
        starts one agent with the API. It appears here within seconds of its first heartbeat.
      </p>
    </section>
  );
}

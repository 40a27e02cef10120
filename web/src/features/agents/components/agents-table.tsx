import { Labels } from '@/components/ui/labels';
import { Empty, ErrorState, Loading } from '@/components/ui/states';
import { formatAgo, formatBytes, formatTime } from '@/lib/format';
import { useAgents } from '../api/list-agents';

/** An agent that has not heartbeated for this long has left the registry (6 s TTL). */
const liveForMs = 6_000;

export function AgentsTable() {
  const agents = useAgents();
  if (agents.isPending) return <Loading />;
  if (agents.error) return <ErrorState error={agents.error} retry={() => agents.refetch()} />;
  const items = agents.data.items;
  if (items.length === 0) {
    return <Empty>No agent has reported yet. Start one with <code>barrage-agent serve</code>.</Empty>;
  }
  // The time of the answer, so the page is a pure function of the data.
  const now = agents.dataUpdatedAt;
  const live = items.filter((a) => now - Date.parse(a.last_seen_at) < liveForMs).length;
  return (
    <div className="stack">
      <p className="muted" style={{ margin: 0 }} data-testid="agents-live">
        {live} of {items.length} live
      </p>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Labels</th>
              <th>Version</th>
              <th className="num">Capacity</th>
              <th className="num">Running shards</th>
              <th className="num">RSS</th>
              <th className="num">CPU</th>
              <th>Last heartbeat</th>
            </tr>
          </thead>
          <tbody>
            {items.map((a) => {
              const isLive = now - Date.parse(a.last_seen_at) < liveForMs;
              return (
                <tr key={a.id}>
                  <td className="mono">{a.name}</td>
                  <td>
                    <span className={`badge ${isLive ? 'ok' : 'muted'}`}>{isLive ? 'live' : 'gone'}</span>
                  </td>
                  <td>
                    <Labels labels={a.labels} />
                  </td>
                  <td className="mono">{a.version}</td>
                  <td className="num">{a.capacity}</td>
                  <td className="num">{a.running_shards}</td>
                  <td className="num">{formatBytes(a.rss_bytes)}</td>
                  <td className="num">{a.cpu_percent.toFixed(1)}%</td>
                  <td title={formatTime(a.last_seen_at)}>{formatAgo(a.last_seen_at, now)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}

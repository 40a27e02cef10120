import { Empty, ErrorState, Loading } from '@/components/ui/states';
import { formatTime } from '@/lib/format';
import { useEchoServers } from '../api/list-echo-servers';

/** EchoServersTable lists the managed echoes registered for the project and the profile each applies. */
export function EchoServersTable({ project }: { project: string }) {
  const servers = useEchoServers(project);
  if (servers.isPending) return <Loading />;
  if (servers.error) return <ErrorState error={servers.error} retry={() => servers.refetch()} />;
  if (servers.data.items.length === 0) {
    return <Empty>No managed echo is registered for this project (start barrage-echo with -project and NATS).</Empty>;
  }
  return (
    <div className="table-wrap">
      <table aria-label="Echo servers">
        <thead>
          <tr>
            <th>Echo</th>
            <th>Addresses</th>
            <th>Active profile</th>
            <th>Applied</th>
            <th>Version</th>
            <th>Started</th>
          </tr>
        </thead>
        <tbody>
          {servers.data.items.map((s) => (
            <tr key={s.name}>
              <td className="mono">{s.name}</td>
              <td className="mono">{s.addrs.join(', ')}</td>
              <td>
                {s.active ? (
                  <span title={`activated ${formatTime(s.active.activated_at)}`}>
                    {s.active.name} <span className="mono muted">{s.active.content}</span>
                  </span>
                ) : (
                  <span className="muted">none</span>
                )}
              </td>
              <td>{s.applied_profile || <span className="muted">none</span>}</td>
              <td className="mono">{s.version}</td>
              <td>{formatTime(s.started_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

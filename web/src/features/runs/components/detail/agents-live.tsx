import { formatDuration, formatRate } from '@/lib/format';
import { useRunShardIntervals } from '../../api/list-run-shard-intervals';
import { agentLabel, latestByAgent } from '../../utils/agent-series';
import { clock } from '../../utils/chart-axis';

/** cpuText is an agent's CPU use against the cores it may use: "1.2 of 2 cores"; "–" when not reported. */
export function cpuText(used: number, cores: number): string {
  if (cores <= 0) return '–';
  return `${used.toFixed(1)} of ${Number.isInteger(cores) ? cores : cores.toFixed(1)} cores`;
}

/**
 * AgentsLive lists each agent of a live run with its latest second's rate,
 * CPU and send lag p99, from the live stream's shards events.
 */
export function AgentsLive({ runId }: { runId: string }) {
  const rows = useRunShardIntervals(runId, true);
  const latest = latestByAgent(rows.data ?? []);
  if (latest.length === 0) return null;
  return (
    <section className="card" aria-label="Agents now">
      <div className="run-chart-head">
        <h2>Agents now</h2>
        <span className="run-chart-note">each agent's latest second</span>
      </div>
      <div className="table-wrap">
        <table data-testid="agents-live">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col" className="num">Second</th>
              <th scope="col" className="num">Rate</th>
              <th scope="col" className="num">CPU</th>
              <th scope="col" className="num">Lag p99</th>
            </tr>
          </thead>
          <tbody>
            {latest.map((r) => (
              <tr key={r.shard}>
                <td>{agentLabel(r)}</td>
                <td className="num">{clock(r.second)}</td>
                <td className="num">{formatRate(r.qps)}/s</td>
                <td className="num">{cpuText(r.cpu_used, r.cpu_cores)}</td>
                <td className="num">{formatDuration(r.lag_p99_us)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

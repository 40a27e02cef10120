import { Link } from 'react-router';
import { Labels } from '@/components/ui/labels';
import type { Schemas } from '@/lib/api-client';
import { formatAgo, formatBytes, formatTime } from '@/lib/format';
import { runName } from '@/lib/run-name';
import { isLive, otherLabels, poolOf, summarize, usableBy } from '../utils/agents';
import { NoAgents } from './no-agents';
import './agents.css';

/**
 * AgentsView shows agents as the API last reported them at now: which are
 * live, their pool and labels, version, running shards against capacity
 * (with links to those of the runs the caller can see),
 * CPU and memory, and whether project (restricted to pools, or not) may
 * use them. With no agent live it says how to start one.
 */
export function AgentsView({ items, now, project, pools }: {
  items: Schemas['Agent'][];
  now: number;
  project: string;
  pools: string[];
}) {
  const s = summarize(items, now, pools);
  return (
    <div className="stack">
      <p className="muted" style={{ margin: 0 }} data-testid="agents-live">
        {s.live} of {s.total} live · {s.busy} of {s.slots} shard slots busy
      </p>
      <p style={{ margin: 0 }} data-testid="agents-pools">
        Project <span className="mono">{project}</span>{' '}
        {pools.length === 0 ? (
          'may use every agent.'
        ) : (
          <>
            may use only agents of the pools <span className="mono">{pools.join(', ')}</span>: {s.usable} of {s.live} live.
          </>
        )}
      </p>
      {s.live === 0 && <NoAgents gone={s.total} />}
      {items.length > 0 && (
        <div className="table-wrap">
          <table aria-label="Agents">
            <thead>
              <tr>
                <th>Name</th>
                <th>State</th>
                <th>Pool</th>
                <th>Labels</th>
                <th>Version</th>
                <th className="num">Running shards</th>
                <th className="num">Capacity</th>
                <th className="num">CPU</th>
                <th className="num">Memory (RSS)</th>
                <th>Last seen</th>
                <th>For {project}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((a) => {
                const live = isLive(a, now);
                const usable = usableBy(a, pools);
                return (
                  <tr key={a.id}>
                    <td className="mono">{a.name}</td>
                    <td>
                      <span className={`badge ${live ? 'ok' : 'muted'}`}>{live ? '● live' : '○ gone'}</span>
                    </td>
                    <td className="mono">{poolOf(a) ?? <span className="muted">none</span>}</td>
                    <td>
                      <Labels labels={otherLabels(a)} />
                    </td>
                    <td className="mono">{a.version}</td>
                    <td className="num">
                      {live ? a.running_shards : '–'}
                      {live && a.shards && a.shards.length > 0 && (
                        <ul className="agent-shards" aria-label={`Shards ${a.name} holds`}>
                          {a.shards.map((sh) => (
                            <li key={`${sh.run_id}-${sh.shard}`}>
                              <Link to={`/runs/${sh.run_id}`}>{runName({ id: sh.run_id, name: sh.run_name })}</Link> #{sh.shard}
                              {sh.status === 'assigned' && <span className="muted"> (starting)</span>}
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td className="num">{a.capacity}</td>
                    <td className="num" title="100% is one core">
                      {live ? `${a.cpu_percent.toFixed(1)}%` : '–'}
                    </td>
                    <td className="num">{live ? formatBytes(a.rss_bytes) : '–'}</td>
                    <td title={formatTime(a.last_seen_at)}>{formatAgo(a.last_seen_at, now)}</td>
                    <td>{usable ? 'usable' : <span className="muted">other pool</span>}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

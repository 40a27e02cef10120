import { ErrorState, Loading } from '@/components/ui/states';
import { formatAgo, formatCount, formatTime } from '@/lib/format';
import { isTerminal, type RunStatus } from '@/lib/run-status';
import { useRunShards } from '../../api/list-run-shards';
import { shardMeaning, shardRate, shardTone, shardTotals, statusBreakdown, type RunShard } from '../../utils/shards';

function ShardBadge({ shard }: { shard: RunShard }) {
  return (
    <span className={`badge ${shardTone(shard.status)}`} title={shardMeaning(shard.status)} data-testid="shard-status">
      {shard.status}
    </span>
  );
}

function Errors({ n }: { n: number }) {
  return <span className={n > 0 ? 'run-bad bad-figure' : undefined}>{formatCount(n)}</span>;
}

/** ShardLine is the one shard of a run in a sentence. */
function ShardLine({ shard: s, now }: { shard: RunShard; now: number }) {
  return (
    <p className="run-shard-line" data-testid="run-shards-summary">
      One shard, on <span className="mono">{s.agent_name || 'an unnamed agent'}</span>: <ShardBadge shard={s} /> ·{' '}
      {shardRate(s.qps)} qps on {formatCount(s.connections)} connection{s.connections === 1 ? '' : 's'} · {formatCount(s.count)} requests,{' '}
      <Errors n={s.errors} /> errors · {formatCount(s.snapshots)} snapshot{s.snapshots === 1 ? '' : 's'} ·{' '}
      <span title={formatTime(s.updated_at)}>updated {formatAgo(s.updated_at, now)}</span>
    </p>
  );
}

interface ViewProps {
  shards: readonly RunShard[];
  /** ended is whether the run is over, which changes what no shard means. */
  ended: boolean;
  now: number;
}

/** ShardsView shows a run's shards: a table, one line for a single shard, or why there are none. */
export function ShardsView({ shards, ended, now }: ViewProps) {
  if (shards.length === 0) {
    return <p className="muted">{ended ? 'The run ended before it reached an agent.' : 'No shards yet: the run waits for agents.'}</p>;
  }
  if (shards.length === 1) return <ShardLine shard={shards[0]!} now={now} />;
  const t = shardTotals(shards);
  return (
    <div className="table-wrap">
      <table data-testid="run-shards">
        <thead>
          <tr>
            <th className="num">Shard</th>
            <th>Agent</th>
            <th>Status</th>
            <th className="num" title="The shard's part of the target rate">
              Target qps
            </th>
            <th className="num">Connections</th>
            <th className="num">Count</th>
            <th className="num">Errors</th>
            <th className="num" title="Snapshots the agent has sent for this shard, the final one included">
              Snapshots
            </th>
            <th>Last update</th>
          </tr>
        </thead>
        <tbody>
          {shards.map((s) => (
            <tr key={s.shard}>
              <td className="num">{s.shard}</td>
              <td className="mono run-shards-agent" title={s.agent_id ?? 'agent removed from the registry'}>
                {s.agent_name || '–'}
              </td>
              <td>
                <ShardBadge shard={s} />
              </td>
              <td className="num">{shardRate(s.qps)}</td>
              <td className="num">{formatCount(s.connections)}</td>
              <td className="num">{formatCount(s.count)}</td>
              <td className="num">
                <Errors n={s.errors} />
              </td>
              <td className="num">{formatCount(s.snapshots)}</td>
              <td title={formatTime(s.updated_at)}>{formatAgo(s.updated_at, now)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={3}>
              Total
            </th>
            <td className="num">{shardRate(t.qps)}</td>
            <td className="num">{formatCount(t.connections)}</td>
            <td className="num">{formatCount(t.count)}</td>
            <td className="num">
              <Errors n={t.errors} />
            </td>
            <td className="num">{formatCount(t.snapshots)}</td>
            <td />
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

interface Props {
  runId: string;
  /** status is the run's, from the run query: the shards are polled until it is terminal. */
  status: RunStatus | undefined;
  now: number;
}

/** ShardsTable is the per-agent shard status of a run, kept current while the run goes on. */
export function ShardsTable({ runId, status, now }: Props) {
  const shards = useRunShards(runId, status);
  const breakdown = shards.data && shards.data.length > 1 ? statusBreakdown(shardTotals(shards.data)) : undefined;
  return (
    <section className="card stack" style={{ gap: 8 }} aria-label="Shards">
      <div className="run-shards-head">
        <h2>Shards</h2>
        {breakdown && <span className="muted">{breakdown}</span>}
      </div>
      {shards.isPending ? (
        <Loading label="Loading shards…" />
      ) : shards.error ? (
        <ErrorState error={shards.error} retry={() => shards.refetch()} />
      ) : (
        <ShardsView shards={shards.data} ended={isTerminal(status)} now={now} />
      )}
    </section>
  );
}

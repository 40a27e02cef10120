import type { Schemas } from '@/lib/api-client';
import { formatCount, formatDuration } from '@/lib/format';
import { RunColumnsHead } from './run-columns-head';

type Phase = keyof Schemas['RequestPhases'];

/** The phases in the order of a request. */
const phases: [Phase, string, string][] = [
  ['dns', 'DNS', 'host name lookup'],
  ['connect', 'connect', 'TCP connect'],
  ['tls', 'TLS', 'TLS handshake'],
  ['waiting', 'waiting', 'connection ready to first response byte'],
  ['receiving', 'receiving', 'first to last response byte'],
];

type Props = { runs: Schemas['ComparedRun'][]; names: string[] };

/**
 * PhasesCompare puts the runs' request phases side by side: one row per
 * phase some run had, one column per run with its p50 and p99 and how many
 * times the phase happened. Nothing is shown when no run has phases.
 */
export function PhasesCompare({ runs, names }: Props) {
  const rows = phases.filter(([k]) => runs.some((r) => r.phases?.[k] !== undefined));
  if (rows.length === 0) return null;
  return (
    <section className="card stack" aria-labelledby="phases-compare-h" style={{ gap: 8 }} data-testid="compare-phases">
      <h2 id="phases-compare-h" style={{ margin: 0 }}>
        Where the time goes
      </h2>
      <div className="table-wrap compare-wrap">
        <table className="compare-table">
          <caption className="sr-only">Request phases of each run: p50, p99 and count</caption>
          <RunColumnsHead runs={runs} names={names} first="phase" />
          <tbody>
            {rows.map(([k, label, what]) => (
              <tr key={k} data-testid={`phase-${k}`}>
                <th scope="row" className="metric" title={what}>
                  {label}
                </th>
                {runs.map((r) => {
                  const l = r.phases?.[k];
                  return (
                    <td key={r.id} className="num">
                      {l ? (
                        <>
                          <div>
                            p50 {formatDuration(l.p50_us)} · p99 {formatDuration(l.p99_us)}
                          </div>
                          <div className="delta">{formatCount(l.count)} times</div>
                        </>
                      ) : (
                        <span className="no-result">none</span>
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted" style={{ margin: 0, fontSize: '0.85rem' }}>
        DNS, connect and TLS happen once per connection opened; waiting and receiving once per response.
      </p>
    </section>
  );
}

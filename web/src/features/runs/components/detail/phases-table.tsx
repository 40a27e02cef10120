import type { Schemas } from '@/lib/api-client';
import { formatCount, formatDuration } from '@/lib/format';

type Phase = keyof Schemas['RequestPhases'];

/** The phases in the order of a request, with what each measures. */
const phases: [Phase, string, string][] = [
  ['dns', 'DNS', 'host name lookup'],
  ['connect', 'connect', 'TCP connect'],
  ['tls', 'TLS', 'TLS handshake'],
  ['waiting', 'waiting', 'connection ready to first response byte'],
  ['receiving', 'receiving', 'first to last response byte'],
];

/**
 * PhasesTable shows where an HTTP run's requests spent their time: one row per
 * phase that happened. The connection phases count the connections opened
 * (with the first request on each), waiting and receiving the responses.
 * Nothing is shown for a run without phases (other protocols, imports).
 */
export function PhasesTable({ result }: { result: Schemas['RunResult'] }) {
  const p = result.phases;
  const rows = p ? phases.filter(([k]) => p[k] !== undefined) : [];
  if (!p || rows.length === 0) return null;
  return (
    <section className="card stack" style={{ gap: 8 }} aria-label="Where the time goes">
      <h2>Where the time goes</h2>
      <div className="table-wrap">
        <table className="run-pct-table">
          <thead>
            <tr>
              <th scope="col">phase</th>
              <th scope="col" className="num">count</th>
              <th scope="col" className="num">p50</th>
              <th scope="col" className="num">p90</th>
              <th scope="col" className="num">p99</th>
              <th scope="col" className="num">max</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([k, label, what]) => {
              const l = p[k]!;
              return (
                <tr key={k}>
                  <th scope="row" title={what}>
                    {label}
                  </th>
                  <td className="num">{formatCount(l.count)}</td>
                  <td className="num">{formatDuration(l.p50_us)}</td>
                  <td className="num">{formatDuration(l.p90_us)}</td>
                  <td className="num">{formatDuration(l.p99_us)}</td>
                  <td className="num">{formatDuration(l.max_us)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p className="run-chart-note">
        DNS, connect and TLS happen once per connection opened, so their count is connections · waiting: connection ready
        to first response byte · receiving: first to last response byte
      </p>
    </section>
  );
}

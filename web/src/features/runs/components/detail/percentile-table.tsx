import type { Schemas } from '@/lib/api-client';
import { formatCount, formatDuration } from '@/lib/format';
import { thinPercentile } from '../../utils/measurement';
import { ThinMark } from './thin-mark';

type Kind = 'response' | 'service' | 'lag' | 'server';
type Field = Exclude<keyof Schemas['LatencySummary'], 'count'>;

const rows: [string, Field][] = [
  ['min', 'min_us'],
  ['p50', 'p50_us'],
  ['p75', 'p75_us'],
  ['p90', 'p90_us'],
  ['p99', 'p99_us'],
  ['p99.9', 'p999_us'],
  ['max', 'max_us'],
  ['avg', 'avg_us'],
  ['stddev', 'stddev_us'],
];
const allKinds: Kind[] = ['response', 'service', 'lag', 'server'];

/**
 * PercentileTable lists each latency's percentiles side by side; the primary
 * one is highlighted. The server column, the latency the target reported in
 * the spec's latency header, is there only when the run read one. An imported
 * run has only the document's figures, which the API gives as service time.
 */
export function PercentileTable({ result }: { result: Schemas['RunResult'] }) {
  const cls = (k: Kind) => (k === result.primary ? 'num primary' : 'num');
  const imported = result.imported;
  const kinds = allKinds.filter((k) => result[k] !== undefined);
  const lat = (k: Kind) => result[k]!;
  // One note per thin percentile and count: kinds that share a count share it.
  const thin = [...new Set(kinds.flatMap((k) => rows.map(([label]) => thinPercentile(label, lat(k).count) ?? '')))].filter(Boolean);
  return (
    <section className="card stack" style={{ gap: 8 }} aria-label="Percentiles">
      <h2>Percentiles</h2>
      <div className="table-wrap">
        <table className="run-pct-table">
          <thead>
            <tr>
              <th>
                <span className="sr-only">Percentile</span>
              </th>
              {kinds.map((k) => (
                <th key={k} className={cls(k)}>
                  {imported ? 'document' : k}
                  {!imported && k === result.primary && (
                    <>
                      {' ★'}
                      <span className="sr-only"> (primary)</span>
                    </>
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, field]) => (
              <tr key={field}>
                <th scope="row">{label}</th>
                {kinds.map((k) => (
                  <td key={k} className={cls(k)}>
                    <ThinMark label={label} note={thinPercentile(label, lat(k).count)} compact>
                      {formatDuration(lat(k)[field])}
                    </ThinMark>
                  </td>
                ))}
              </tr>
            ))}
            <tr>
              <th scope="row">count</th>
              {kinds.map((k) => (
                <td key={k} className={cls(k)}>
                  {formatCount(lat(k).count)}
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      </div>
      {thin.length > 0 && (
        <ul className="run-chart-note thin-notes" aria-label="Percentiles with few samples">
          {thin.map((n) => (
            <li key={n}>† few samples: {n}</li>
          ))}
        </ul>
      )}
      {imported ? (
        <p className="run-chart-note">
          The percentiles as the imported document recorded them; it does not tell response time from service time, and has no lag.
        </p>
      ) : (
      <p className="run-chart-note">
        ★ primary, the latency shown by default · response: intended send to done (corrected for coordinated omission) ·
        service: actual send to done · lag: intended to actual send
        {result.server && ' · server: reported by the target in its latency header (count: the responses that carried it)'}
      </p>
      )}
    </section>
  );
}

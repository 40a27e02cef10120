import type { Schemas } from '@/lib/api-client';
import { formatCount, formatDuration, formatPercent, formatRate } from '@/lib/format';
import { countsText } from '../../utils/ret-codes';

type Entry = Schemas['EntryResult'];

/**
 * EntriesTable shows the sub-result of every entry of a run's request mix:
 * its share of the calls, rate, errors, codes and headline percentiles (of
 * the run's primary latency). It renders nothing for a run without a mix.
 */
export function EntriesTable({ result }: { result: Schemas['RunResult'] }) {
  const entries = result.entries ?? [];
  if (entries.length === 0) return null;
  const lat = (e: Entry) => (result.primary === 'response' ? e.response : e.service);
  return (
    <section className="card stack" style={{ gap: 8 }} aria-label="Request mix">
      <h2>Request mix</h2>
      <div className="table-wrap">
        <table data-testid="run-entries">
          <thead>
            <tr>
              <th>Entry</th>
              <th className="num">Target</th>
              <th className="num">Count</th>
              <th className="num">Share</th>
              <th className="num">QPS</th>
              <th className="num">Errors</th>
              <th className="num">p50</th>
              <th className="num">p99</th>
              <th className="num">Max</th>
              <th>Codes</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.index}>
                <td className="mono">{e.name}</td>
                <td className="num">{e.target_qps != null ? `${formatRate(e.target_qps)} qps` : `weight ${e.weight ?? 1}`}</td>
                <td className="num">{formatCount(e.count)}</td>
                <td className="num">{formatPercent(result.count > 0 ? e.count / result.count : 0)}</td>
                <td className="num">{formatRate(e.qps)}</td>
                <td className={`num ${e.errors > 0 ? 'run-bad bad-figure' : ''}`}>{formatCount(e.errors)}</td>
                <td className="num">{formatDuration(lat(e).p50_us)}</td>
                <td className="num">{formatDuration(lat(e).p99_us)}</td>
                <td className="num">{formatDuration(lat(e).max_us)}</td>
                <td className="mono">{countsText(e.ret_codes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

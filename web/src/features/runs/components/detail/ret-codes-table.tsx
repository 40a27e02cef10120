import type { Schemas } from '@/lib/api-client';
import { formatCount, formatPercent } from '@/lib/format';
import { isOkCode } from '../../utils/ret-codes';

/** RetCodesTable lists the result codes, most frequent first, with their share of all calls. */
export function RetCodesTable({ result }: { result: Schemas['RunResult'] }) {
  const codes = Object.entries(result.ret_codes).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return (
    <section className="card stack" style={{ gap: 8 }} aria-label="Result codes">
      <h2>Result codes</h2>
      {codes.length === 0 ? (
        <p className="muted">No calls were made.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Code</th>
                <th className="num">Count</th>
                <th className="num">Share</th>
              </tr>
            </thead>
            <tbody>
              {codes.map(([code, n]) => (
                <tr key={code}>
                  <td className={`mono ${isOkCode(code) ? '' : 'run-bad bad-figure'}`}>{code === '-1' ? '-1 (socket error)' : code}</td>
                  <td className="num">{formatCount(n)}</td>
                  <td className="num">{formatPercent(result.count > 0 ? n / result.count : 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

import { Link } from 'react-router';
import { ImportedBadge } from '@/components/ui/imported-badge';
import { Labels } from '@/components/ui/labels';
import { StatusBadge } from '@/components/ui/status-badge';
import type { Schemas } from '@/lib/api-client';
import { estimateAt } from '../../utils/compare-changes';
import { compareCells, type LatencyKey } from '../../utils/metrics';
import { hasResult, runColor } from '../../utils/compared-runs';
import { ChangeWhisker, whiskerSpan } from './change-whisker';
import './compare.css';

type Props = {
  runs: Schemas['ComparedRun'][];
  names: string[];
  onRemove: (id: string) => void;
};

/** The percentile each estimated row is of. */
const estimated: Partial<Record<LatencyKey | 'count' | 'qps' | 'errors', number>> = { p50_us: 50, p90_us: 90, p99_us: 99, p999_us: 99.9 };

/**
 * CompareTable shows one column per run, each figure with its change against
 * the first run (the reference) and, for p50, p90, p99 and p99.9 where the API
 * estimated it, the change's 95 % interval as a whisker and its verdict.
 */
export function CompareTable({ runs, names, onRemove }: Props) {
  const rows = compareCells(runs);
  const span = whiskerSpan(runs.flatMap((r) => r.change?.estimates ?? []));
  return (
    <div className="table-wrap compare-wrap">
      <table className="compare-table" data-testid="compare-table">
        <caption className="sr-only">Figures of each run, with the change against the first run</caption>
        <thead>
          <tr>
            <th className="metric" scope="col">
              <span className="sr-only">Figure</span>
            </th>
            {runs.map((r, i) => (
              <th key={r.id} scope="col" data-run-id={r.id}>
                <div className="run-head">
                  <span className="swatch" style={{ background: runColor(i) }} aria-hidden />
                  <Link to={`/runs/${r.id}`} style={{ flex: 1 }}>
                    {names[i]}
                  </Link>
                  <button
                    type="button"
                    className="remove"
                    onClick={() => onRemove(r.id)}
                    aria-label={`Remove ${names[i]} from the comparison`}
                    title="Remove from the comparison"
                  >
                    ×
                  </button>
                </div>
                <div className="run-meta">
                  <StatusBadge status={r.status} />
                  <ImportedBadge source={r.source} />
                  {i === 0 && <span>reference</span>}
                  {r.latency_kind && <span>{r.latency_kind} time</span>}
                </div>
                {r.change?.note && (
                  <div className="run-meta change-note" data-testid={`change-note-${r.id}`}>
                    No interval: {r.change.note}
                  </div>
                )}
                <div className="run-meta">
                  <Labels labels={r.labels} />
                </div>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ metric, cells }) => (
            <tr key={metric.key}>
              <th scope="row" className="metric">
                {metric.label}
              </th>
              {cells.map((c, i) => {
                const run = runs[i]!;
                const countCell = metric.key === 'count';
                const p = estimated[metric.key];
                const estimate = p === undefined ? undefined : estimateAt(run, p);
                return (
                  <td key={run.id} className="num" data-testid={countCell ? `compare-count-${run.id}` : undefined}>
                    {countCell && !hasResult(run) ? (
                      <span className="no-result">no result</span>
                    ) : (
                      <>
                        <div>{c.text}</div>
                        {c.delta && (
                          <div className={`delta ${c.tone}`} title={`Against ${names[0]}`}>
                            {c.delta}
                            {c.tone !== 'neutral' && ` ${c.tone === 'good' ? 'better' : 'worse'}`}
                          </div>
                        )}
                        {estimate && <ChangeWhisker estimate={estimate} span={span} />}
                      </>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

import { Link } from 'react-router';
import { ImportedBadge } from '@/components/ui/imported-badge';
import { Labels } from '@/components/ui/labels';
import { StatusBadge } from '@/components/ui/status-badge';
import type { Schemas } from '@/lib/api-client';
import { compareCells } from '../../utils/metrics';
import { hasResult, runColor } from '../../utils/compared-runs';
import './compare.css';

type Props = {
  runs: Schemas['ComparedRun'][];
  names: string[];
  /** Whether each run has a line of its own colour in the charts above. */
  swatches: boolean;
  onRemove: (id: string) => void;
};

/** CompareTable shows one column per run, each figure with its delta against the first run. */
export function CompareTable({ runs, names, swatches, onRemove }: Props) {
  const rows = compareCells(runs);
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
                  {swatches && <span className="swatch" style={{ background: runColor(i) }} aria-hidden />}
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
                  {i === 0 && <span>baseline</span>}
                </div>
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
                          </div>
                        )}
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

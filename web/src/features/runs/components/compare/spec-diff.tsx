import type { Schemas } from '@/lib/api-client';
import { specDiff, specWarnings } from '../../utils/spec-diff';
import { RunColumnsHead } from './run-columns-head';

type Props = { runs: Schemas['ComparedRun'][]; names: string[] };

/**
 * SpecDiff shows, above the figures, the spec fields that differ between the
 * runs (qps 100 vs 200, connections, duration, url, protocol), and warns when
 * runs at different rates or over different protocols are compared.
 */
export function SpecDiff({ runs, names }: Props) {
  const diff = specDiff(runs.map((r) => r.spec));
  const warnings = specWarnings(diff);
  return (
    <section className="card stack" aria-labelledby="spec-diff-h" data-testid="spec-diff" style={{ gap: 8 }}>
      <h2 id="spec-diff-h" style={{ margin: 0 }}>
        What differs between the runs
      </h2>
      {warnings.map((w) => (
        <p key={w} className="spec-warning" role="note">
          <strong>Warning:</strong> {w}
        </p>
      ))}
      {diff.length === 0 ? (
        <p className="muted" style={{ margin: 0 }} data-testid="spec-same">
          The runs' specs agree on rate, protocol, connections, duration, url, method and pacing.
        </p>
      ) : (
        <div className="table-wrap compare-wrap">
          <table className="compare-table">
            <caption className="sr-only">Spec fields that differ, one column per run</caption>
            <RunColumnsHead runs={runs} names={names} first="field" />
            <tbody>
              {diff.map((d) => (
                <tr key={d.key} data-testid={`spec-diff-${d.key}`}>
                  <th scope="row" className="metric">
                    {d.label}
                  </th>
                  {d.values.map((v, i) => (
                    <td key={runs[i]!.id} className={d.key === 'url' ? 'mono spec-url' : undefined}>
                      {v ?? '–'}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

import { Link } from 'react-router';
import type { Schemas } from '@/lib/api-client';
import { runName } from '@/lib/run-name';
import { useRun } from '../../api/get-run';
import { thresholdCounts, thresholdRows } from '../../utils/thresholds';

const badge = { pass: 'ok', fail: 'bad', error: 'warn', inconclusive: 'warn' } as const;
const word = { pass: 'pass', fail: 'fail', error: 'not evaluated', inconclusive: 'inconclusive' } as const;

/**
 * ThresholdsCard lists a run's thresholds: while it runs, the expressions it
 * will be judged by; once judged, each one's observed value, limit and
 * outcome. Nothing when the run has no thresholds.
 */
export function ThresholdsCard({ run }: { run: Schemas['Run'] }) {
  const results = run.threshold_results;
  if (run.thresholds.length === 0 && !results?.length) return null;
  const rows = thresholdRows(run.thresholds, results);
  return (
    <section className="card stack" style={{ gap: 8 }} aria-label="Thresholds">
      <div className="spread">
        <h2>Thresholds</h2>
        <span className="muted">
          {results ? thresholdCounts(results) : 'judged when the run ends'}
          {run.baseline_run_id && (
            <>
              {' · baseline '}
              <BaselineLink runId={run.baseline_run_id} />
              {run.baseline_pool && run.baseline_pool.runs.length > 1 && ` and ${run.baseline_pool.runs.length - 1} older, pooled`}
            </>
          )}
        </span>
      </div>
      {run.baseline_pool?.note && (
        <p className="muted" data-testid="baseline-note" style={{ margin: 0 }}>
          Baseline: {run.baseline_pool.note}
        </p>
      )}
      <div className="table-wrap">
        <table data-testid="run-thresholds">
          <thead>
            <tr>
              <th>Expression</th>
              <th>Metric</th>
              <th className="num">Observed</th>
              <th className="num">Limit</th>
              <th>Outcome</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) =>
              'pending' in row ? (
                <tr key={i}>
                  <td className="mono">{row.expression}</td>
                  <td className="muted">–</td>
                  <td className="num muted">–</td>
                  <td className="num muted">–</td>
                  <td>
                    <span className="badge muted">pending</span>
                  </td>
                </tr>
              ) : (
                <tr key={i}>
                  <td className="mono">{row.expression}</td>
                  <td className="mono">{row.metric}</td>
                  <td className="num">{row.observed}</td>
                  <td className="num">{row.limit}</td>
                  <td>
                    <span className={`badge ${badge[row.outcome]}`} data-testid="threshold-outcome" title={row.error}>
                      {word[row.outcome]}
                    </span>
                    {row.error && <div className="field-error">{row.error}</div>}
                    {row.interval && (
                      <div className="muted" data-testid="threshold-interval">
                        {row.interval}
                      </div>
                    )}
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** BaselineLink names the baseline run as everywhere: its name once loaded, else its date and id tail. */
function BaselineLink({ runId }: { runId: string }) {
  const baseline = useRun(runId);
  return <Link to={`/runs/${runId}`}>{runName(baseline.data ?? { id: runId })}</Link>;
}

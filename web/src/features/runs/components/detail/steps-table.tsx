import type { Schemas } from '@/lib/api-client';
import { formatCount, formatDuration, formatPercent } from '@/lib/format';
import { countsText } from '../../utils/ret-codes';

type Step = Schemas['StepResult'];

/** Why the step's requests failed: checks by name, extractions by variable, requests without a response. */
function failures(s: Step): { label: string; text: string }[] {
  return [
    { label: 'failed checks', text: countsText(s.failed_checks) },
    { label: 'failed extractions', text: countsText(s.failed_extractions) },
    { label: 'no response', text: countsText(s.transport_errors) },
  ].filter((f) => f.text !== '');
}

/**
 * StepsTable shows a scenario run (docs/scenarios.md): its iterations
 * (started, completed, failed, and their duration) and a row per step with
 * its requests, errors, skips, response-time percentiles from the step's
 * intended start, codes and why requests failed. It renders nothing for
 * other runs.
 */
export function StepsTable({ result }: { result: Schemas['RunResult'] }) {
  const sc = result.scenario;
  if (!sc) return null;
  const it = sc.iteration;
  return (
    <section className="card stack" style={{ gap: 8 }} aria-label="Scenario steps">
      <h2>Scenario</h2>
      <p data-testid="scenario-iterations">
        {formatCount(sc.started)} iterations started, {formatCount(sc.completed)} completed,{' '}
        <span className={sc.failed > 0 ? 'run-bad bad-figure' : undefined}>{formatCount(sc.failed)} failed</span>
        {sc.started > 0 && ` (${formatPercent(sc.failed / sc.started)})`}. Iteration duration p50 {formatDuration(it.p50_us)}, p90{' '}
        {formatDuration(it.p90_us)}, p99 {formatDuration(it.p99_us)}, max {formatDuration(it.max_us)}.
      </p>
      <div className="table-wrap">
        <table data-testid="run-steps">
          <caption className="sr-only">Each step's requests and response time, from its intended start</caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col" className="num">Count</th>
              <th scope="col" className="num">Errors</th>
              <th scope="col" className="num">Skipped</th>
              <th scope="col" className="num">p50</th>
              <th scope="col" className="num">p90</th>
              <th scope="col" className="num">p99</th>
              <th scope="col" className="num">Max</th>
              <th scope="col">Codes</th>
              <th scope="col">Failures</th>
            </tr>
          </thead>
          <tbody>
            {sc.steps.map((s) => (
              <tr key={s.index}>
                <th scope="row" className="mono">
                  {s.name}
                </th>
                <td className="num">{formatCount(s.count)}</td>
                <td className={`num ${s.errors > 0 ? 'run-bad bad-figure' : ''}`}>{formatCount(s.errors)}</td>
                <td className="num">{formatCount(s.skipped)}</td>
                <td className="num">{formatDuration(s.response.p50_us)}</td>
                <td className="num">{formatDuration(s.response.p90_us)}</td>
                <td className="num">{formatDuration(s.response.p99_us)}</td>
                <td className="num">{formatDuration(s.response.max_us)}</td>
                <td className="mono">{countsText(s.ret_codes)}</td>
                <td>
                  {failures(s).map((f) => (
                    <div key={f.label}>
                      {f.label}: <span className="mono">{f.text}</span>
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

import type { Schemas } from '@/lib/api-client';
import { formatCount, formatDelta, formatDuration } from '@/lib/format';
import { RunColumnsHead } from './run-columns-head';

type Props = { runs: Schemas['ComparedRun'][]; names: string[] };

/** The step names of the scenario runs, in the order the first run having each lists it. */
export function stepNames(runs: Schemas['ComparedRun'][]): string[] {
  const out: string[] = [];
  for (const r of runs) for (const s of r.scenario?.steps ?? []) if (!out.includes(s.name)) out.push(s.name);
  return out;
}

/** stepOf is run r's step named name, if it has one. */
function stepOf(r: Schemas['ComparedRun'], name: string): Schemas['StepResult'] | undefined {
  return r.scenario?.steps.find((s) => s.name === name);
}

/** FigureCell is one run's cell: two lines of figures, the second marked when bad, or none's text when top is undefined. */
function FigureCell({ top, bottom, bad, none }: { top?: string; bottom?: string; bad: boolean; none: string }) {
  return (
    <td className="num">
      {top === undefined ? (
        <span className="no-result">{none}</span>
      ) : (
        <>
          <div>{top}</div>
          <div className={bad ? 'delta bad-figure' : 'delta'}>{bottom}</div>
        </>
      )}
    </td>
  );
}

/**
 * StepsCompare puts scenario runs' steps side by side (docs/scenarios.md):
 * the iterations, then one row per step name, one column per run with the
 * step's response-time p50 and p99 from its intended start, its p99 against
 * the first run that has the step, and its requests and errors. Steps are
 * matched by name. Nothing is shown when no run is a scenario run.
 */
export function StepsCompare({ runs, names }: Props) {
  const steps = stepNames(runs);
  if (steps.length === 0) return null;
  return (
    <section className="card stack" aria-labelledby="steps-compare-h" style={{ gap: 8 }} data-testid="compare-steps">
      <h2 id="steps-compare-h" style={{ margin: 0 }}>
        Scenario steps
      </h2>
      <div className="table-wrap compare-wrap">
        <table className="compare-table">
          <caption className="sr-only">Each scenario step of each run: response time p50 and p99, requests and errors</caption>
          <RunColumnsHead runs={runs} names={names} first="step" />
          <tbody>
            <tr data-testid="steps-iterations">
              <th scope="row" className="metric" title="from an iteration's intended start to its last step's end">
                iterations
              </th>
              {runs.map((r) => {
                const sc = r.scenario;
                return (
                  <FigureCell
                    key={r.id}
                    top={sc && `p50 ${formatDuration(sc.iteration.p50_us)} · p99 ${formatDuration(sc.iteration.p99_us)}`}
                    bottom={sc && `${formatCount(sc.started)} started · ${formatCount(sc.failed)} failed`}
                    bad={(sc?.failed ?? 0) > 0}
                    none="not a scenario"
                  />
                );
              })}
            </tr>
            {steps.map((name) => {
              const ref = runs.map((r) => stepOf(r, name)).find((s) => s !== undefined);
              return (
                <tr key={name} data-testid={`step-${name}`}>
                  <th scope="row" className="metric mono">
                    {name}
                  </th>
                  {runs.map((r) => {
                    const s = stepOf(r, name);
                    const change = s && ref && s !== ref ? ` (${formatDelta(ref.response.p99_us, s.response.p99_us)})` : '';
                    return (
                      <FigureCell
                        key={r.id}
                        top={s && `p50 ${formatDuration(s.response.p50_us)} · p99 ${formatDuration(s.response.p99_us)}${change}`}
                        bottom={s && `${formatCount(s.count)} requests · ${formatCount(s.errors)} errors`}
                        bad={(s?.errors ?? 0) > 0}
                        none="no such step"
                      />
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p className="muted" style={{ margin: 0, fontSize: '0.85rem' }}>
        Response time from each step's intended start; the change is each step's p99 against the first run that has it.
      </p>
    </section>
  );
}

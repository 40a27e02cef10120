import { useId } from 'react';
import { buildObjective, metrics, unitOf, type Clause } from '../utils/objective';

/**
 * ObjectiveBuilder edits a search objective as clauses joined by "and",
 * each a metric, a comparison and a limit, and shows the expression the API
 * will get.
 */
export function ObjectiveBuilder({ clauses, onChange, errors, problem }: {
  clauses: Clause[];
  onChange: (c: Clause[]) => void;
  errors: Record<number, string>;
  problem?: string;
}) {
  const id = useId();
  const update = (i: number, c: Partial<Clause>) => onChange(clauses.map((x, j) => (j === i ? { ...x, ...c } : x)));
  const preview = buildObjective(clauses).objective;
  return (
    <fieldset>
      <legend>Objective: every clause must hold</legend>
      <div className="stack">
        {clauses.map((c, i) => (
          <div key={i} className="row" role="group" aria-label={`Clause ${i + 1}`}>
            <label className="field">
              <span className="sr-only">Metric of clause {i + 1}</span>
              <select value={c.metric} onChange={(e) => update(i, { metric: e.target.value })}>
                {metrics.map((m) => (
                  <option key={m.metric} value={m.metric}>
                    {m.label}
                  </option>
                ))}
              </select>
            </label>
            <label className="field">
              <span className="sr-only">Comparison of clause {i + 1}</span>
              <select value={c.op} onChange={(e) => update(i, { op: e.target.value as Clause['op'] })}>
                <option value="<">below</option>
                <option value="<=">at most</option>
              </select>
            </label>
            <label className="field" htmlFor={`${id}-${i}`}>
              <span className="sr-only">Limit of clause {i + 1} ({unitOf(c.metric)})</span>
              <input id={`${id}-${i}`} value={c.value} inputMode="decimal" style={{ width: 100 }}
                onChange={(e) => update(i, { value: e.target.value })}
                aria-invalid={errors[i] ? true : undefined} aria-describedby={errors[i] ? `${id}-${i}-err` : undefined} />
            </label>
            <span aria-hidden>{unitOf(c.metric)}</span>
            <button type="button" className="link" onClick={() => onChange(clauses.filter((_, j) => j !== i))}
              aria-label={`Remove clause ${i + 1}`}>
              Remove
            </button>
            {errors[i] && <span className="field-error" id={`${id}-${i}-err`}>{errors[i]}</span>}
          </div>
        ))}
        <div className="row">
          <button type="button" onClick={() => onChange([...clauses, { metric: 'p(90)', op: '<', value: '' }])}>
            Add clause
          </button>
          <span className="muted">
            Sent as <code data-testid="objective-preview">{preview || '–'}</code>
          </span>
        </div>
        {problem && <span className="field-error" role="alert">{problem}</span>}
      </div>
    </fieldset>
  );
}

import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { emptyFilter, toQuery, type AuditFilter, type AuditQuery } from '../utils/audit-filter';

/** commonActions are suggestions for the action field; any action or prefix ending in a dot works. */
const commonActions = [
  'run.', 'run.create', 'run.move', 'run.delete', 'test.', 'token.', 'token.create', 'token.revoke', 'member.',
  'project.update', 'session.', 'auth.login_failed', 'user.', 'sync.',
];

/**
 * AuditFilters is the audit log's filter form: actor, action and a time
 * range. It hands the checked query to onApply; nothing is sent until then.
 */
export function AuditFilters({ onApply }: { onApply: (q: AuditQuery) => void }) {
  const [f, setF] = useState<AuditFilter>(emptyFilter);
  const [errors, setErrors] = useState<Partial<Record<keyof AuditFilter, string>>>({});
  const id = useId();
  const set = (k: keyof AuditFilter) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { query, errors: errs } = toQuery(f);
    setErrors(errs);
    if (Object.keys(errs).length === 0) onApply(query);
  };
  const clear = () => {
    setF(emptyFilter);
    setErrors({});
    onApply({});
  };
  const field = (k: keyof AuditFilter, label: string, hint: string, input: ReactNode) => (
    <label className="field" htmlFor={`${id}-${k}`}>
      {label} <span className="hint">{hint}</span>
      {input}
      {errors[k] && <span className="field-error" id={`${id}-${k}-err`}>{errors[k]}</span>}
    </label>
  );
  const common = (k: keyof AuditFilter) => ({
    id: `${id}-${k}`,
    value: f[k],
    onChange: set(k),
    'aria-invalid': errors[k] ? true : undefined,
    'aria-describedby': errors[k] ? `${id}-${k}-err` : undefined,
  });
  return (
    <form className="card audit-filters" onSubmit={submit} noValidate aria-label="Filter audit log">
      {field('actor', 'Actor', 'email or token name', <input {...common('actor')} maxLength={320} />)}
      {field('action', 'Action', 'e.g. run.create, or run. for all', <input {...common('action')} maxLength={64} list={`${id}-actions`} />)}
      <datalist id={`${id}-actions`}>
        {commonActions.map((a) => (
          <option key={a} value={a} />
        ))}
      </datalist>
      {field('since', 'From', 'your time zone', <input {...common('since')} type="datetime-local" step={1} />)}
      {field('until', 'To', 'before this', <input {...common('until')} type="datetime-local" step={1} />)}
      <div className="actions">
        <button type="submit" className="primary">Apply filters</button>
        <button type="button" onClick={clear}>Clear</button>
      </div>
    </form>
  );
}

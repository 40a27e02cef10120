import { useId, useState, type FormEvent } from 'react';
import { ApiError, type Schemas } from '@/lib/api-client';
import { commonTimezones, formErrorsOf, maxBaselineLast, toTestBody, type FormErrors, type TestFormValues } from '../utils/test-form';
import './tests.css';

type Props = {
  title: string;
  initial: TestFormValues;
  submitLabel: string;
  pending: boolean;
  /** The failed save, whose field errors are shown next to the fields. */
  error: unknown;
  onSubmit: (body: Schemas['TestReplace']) => void;
  onCancel: () => void;
};

/** TestForm edits a test definition: name, labels, thresholds, schedule and the spec as JSON. */
export function TestForm({ title, initial, submitLabel, pending, error, onSubmit, onCancel }: Props) {
  const [values, setValues] = useState(initial);
  const [local, setLocal] = useState<FormErrors>({});
  const id = useId();
  const api = error instanceof ApiError ? formErrorsOf(error.problem.errors) : {};
  // A field's own check comes first; the API's errors stay until the next save.
  const errs: FormErrors = { ...api, ...local };
  const set = (k: keyof TestFormValues) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [k]: e.target.value }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = toTestBody(values);
    if ('errors' in r) {
      setLocal(r.errors);
      return;
    }
    setLocal({});
    onSubmit(r.body);
  };

  const field = (k: keyof TestFormValues) => ({
    id: `${id}-${k}`,
    value: values[k],
    onChange: set(k),
    'aria-invalid': errs[k] ? true : undefined,
    'aria-describedby': errs[k] ? `${id}-${k}-err` : undefined,
  });
  const fieldError = (k: keyof TestFormValues) =>
    errs[k] && (
      <span className="field-error" id={`${id}-${k}-err`}>
        {errs[k]}
      </span>
    );

  const general = error && Object.keys(api).length === 0
    ? error instanceof ApiError ? (error.problem.detail ?? error.problem.title) : 'Cannot reach the API'
    : errs.other;

  return (
    <form className="card stack test-form" onSubmit={submit} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} style={{ margin: 0 }}>
        {title}
      </h2>
      <div className="grid-2">
        <div className="stack" style={{ gap: 12 }}>
          <label className="field" htmlFor={`${id}-name`}>
            Name
            <input {...field('name')} required maxLength={200} autoComplete="off" />
            {fieldError('name')}
          </label>
          <label className="field" htmlFor={`${id}-description`}>
            Description
            <textarea {...field('description')} rows={2} maxLength={2000} style={{ fontFamily: 'inherit' }} />
            {fieldError('description')}
          </label>
          <label className="field" htmlFor={`${id}-labels`}>
            Labels <span className="hint">one key=value per line</span>
            <textarea {...field('labels')} rows={4} placeholder={'team=payments\nenv=staging'} spellCheck={false} />
            {fieldError('labels')}
          </label>
          <label className="field" htmlFor={`${id}-thresholds`}>
            Thresholds <span className="hint">one per line, e.g. p(99) &lt; 250ms</span>
            <textarea {...field('thresholds')} rows={4} placeholder={'p(99) < 250ms'} spellCheck={false} />
            {fieldError('thresholds')}
          </label>
          <label className="field" htmlFor={`${id}-baselineLast`}>
            Baseline: pool the last N passing runs{' '}
            <span className="hint">1 to {maxBaselineLast}, for thresholds such as p(99) &lt; baseline * 1.10 @ 95%; empty for the newest passing run</span>
            <input {...field('baselineLast')} inputMode="numeric" placeholder="e.g. 5" autoComplete="off" style={{ maxWidth: 120 }} />
            {fieldError('baselineLast')}
          </label>
          <div className="schedule-fields">
            <label className="field" htmlFor={`${id}-schedule`}>
              Schedule (cron) <span className="hint">minute hour day month weekday, e.g. 0 3 * * 1-5; empty for none</span>
              <input {...field('schedule')} maxLength={100} placeholder="0 3 * * 1-5" spellCheck={false} autoComplete="off"
                className="mono" />
              {fieldError('schedule')}
            </label>
            <label className="field" htmlFor={`${id}-timezone`}>
              Time zone
              <input {...field('timezone')} list={`${id}-zones`} maxLength={64} spellCheck={false} autoComplete="off" />
              <datalist id={`${id}-zones`}>
                {commonTimezones.map((z) => (
                  <option key={z} value={z} />
                ))}
              </datalist>
              {fieldError('timezone')}
            </label>
          </div>
        </div>
        <label className="field spec" htmlFor={`${id}-spec`}>
          Spec <span className="hint">JSON: url, qps, duration, connections, agents, … as in the API's RunSpec</span>
          <textarea {...field('spec')} spellCheck={false} />
          {fieldError('spec')}
        </label>
      </div>
      {general && (
        <div className="field-error" role="alert">
          {general}
        </div>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={pending}>
          {pending ? 'Saving…' : submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

import { useId, useState, type FormEvent } from 'react';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useProject } from '@/lib/project';
import { useCreateSyncSource } from '../api/create-sync-source';
import { emptySourceForm, mapSourceProblem, sourceBody, type SourceField, type SourceFieldErrors, type SourceFormState } from '../utils/source-form';

const labels: Record<SourceField, string> = { name: 'Name', url: 'URL', interval: 'Interval (minutes)' };
const hints: Partial<Record<SourceField, string>> = {
  url: 'An index.tsv of a Barrage or Fortio server, or an S3/GCS bucket listing (prefix= kept)',
  interval: '0 = only on demand',
};

/** SourceForm adds a sync source; the API's field errors show next to their inputs. */
export function SourceForm({ onCreated, onCancel }: { onCreated?: (s: Schemas['SyncSource']) => void; onCancel?: () => void }) {
  const project = useProject();
  const create = useCreateSyncSource();
  const uid = useId();
  const [state, setState] = useState<SourceFormState>(emptySourceForm);
  const [local, setLocal] = useState<SourceFieldErrors>({});

  const problem = create.error instanceof ApiError ? mapSourceProblem(create.error.problem.errors ?? []) : undefined;
  const errors: SourceFieldErrors = { ...problem?.fields, ...local };
  const set = (k: SourceField, v: string) => {
    setState((s) => ({ ...s, [k]: v }));
    setLocal((e) => ({ ...e, [k]: undefined }));
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = sourceBody(state, project);
    if ('errors' in r) {
      setLocal(r.errors);
      return;
    }
    setLocal({});
    create.mutate(r.body, {
      onSuccess: (s) => {
        setState(emptySourceForm);
        onCreated?.(s);
      },
    });
  };

  const field = (k: SourceField, input: Record<string, unknown>) => {
    const id = `${uid}-${k}`;
    const describedBy = [hints[k] ? `${id}-hint` : '', errors[k] ? `${id}-error` : ''].filter(Boolean).join(' ');
    return (
      <label className={`field${k === 'url' ? ' wide' : ''}`}>
        {labels[k]}
        <input
          {...input}
          id={id}
          name={k}
          value={state[k]}
          onChange={(e) => set(k, e.target.value)}
          aria-invalid={errors[k] ? true : undefined}
          aria-describedby={describedBy || undefined}
        />
        {hints[k] && (
          <span id={`${id}-hint`} className="hint">
            {hints[k]}
          </span>
        )}
        {errors[k] && (
          <span id={`${id}-error`} className="field-error">
            {errors[k]}
          </span>
        )}
      </label>
    );
  };

  const failed = create.error && (!(create.error instanceof ApiError) || !problem || problem.other.length > 0 || Object.keys(problem.fields).length === 0);

  return (
    <form className="card sync-form stack" style={{ gap: 12 }} onSubmit={submit} noValidate aria-label="Add a sync source">
      <h2 style={{ margin: 0 }}>Add a source</h2>
      {failed && (
        <div className="error-summary" role="alert">
          The source was not added:{' '}
          {create.error instanceof ApiError ? (create.error.problem.detail ?? create.error.problem.title) : 'cannot reach the API'}
          {problem && problem.other.length > 0 && (
            <ul>
              {problem.other.map((e, i) => (
                <li key={i}>
                  {e.field}: {e.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div className="form-grid">
        {field('name', { type: 'text', autoComplete: 'off', required: true })}
        {field('interval', { type: 'number', min: 0, step: 1, inputMode: 'numeric' })}
      </div>
      <div className="form-grid">{field('url', { type: 'url', spellCheck: false, required: true, placeholder: 'https://storage.googleapis.com/bucket?prefix=results/' })}</div>
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add source'}
        </button>
        {onCancel && (
          <button type="button" className="link" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

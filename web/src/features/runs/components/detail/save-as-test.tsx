import { useId, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ApiError, type Schemas } from '@/lib/api-client';
import { runName } from '@/lib/run-name';
import { useCreateTest } from '../../api/create-test';
import { redactedPaths, testFromRun } from '../../utils/run-again';

/**
 * SaveAsTest stores this run's spec, labels and thresholds as a test under
 * a name the user enters, then opens the test. The API's refusal of a field
 * shows next to the name when it names the name, in a list otherwise.
 */
export function SaveAsTest({ run }: { run: Schemas['Run'] }) {
  const id = useId();
  const create = useCreateTest();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(() => run.name || runName(run));
  if (!open) {
    return (
      <button type="button" data-testid="save-as-test" onClick={() => setOpen(true)}>
        Save as test
      </button>
    );
  }
  const problem = create.error instanceof ApiError ? create.error : undefined;
  const fields = problem?.fieldErrors() ?? {};
  const others = (problem?.problem.errors ?? []).filter((e: Schemas['FieldError']) => e.field !== 'name');
  const redacted = redactedPaths(run.spec);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(testFromRun(run, name), { onSuccess: (t) => void navigate(`/tests/${t.id}`) });
  };
  return (
    <form className="row save-as-test" aria-label="Save as test" onSubmit={submit} noValidate>
      <label htmlFor={`${id}-name`}>Test name</label>
      <input
        id={`${id}-name`}
        value={name}
        onChange={(e) => setName(e.target.value)}
        aria-invalid={fields.name ? true : undefined}
        aria-describedby={fields.name ? `${id}-name-error` : undefined}
        autoFocus
      />
      <button type="submit" className="primary" disabled={create.isPending}>
        {create.isPending ? 'Saving…' : 'Save'}
      </button>
      <button type="button" disabled={create.isPending} onClick={() => setOpen(false)}>
        Cancel
      </button>
      {fields.name && (
        <span className="field-error" id={`${id}-name-error`} role="alert">
          {fields.name}
        </span>
      )}
      {create.error && (!fields.name || others.length > 0) && (
        <div className="field-error" role="alert">
          Could not save{fields.name ? '' : `: ${problem?.problem.detail ?? problem?.problem.title ?? create.error.message}`}
          {others.length > 0 && (
            <ul>
              {others.map((f: Schemas['FieldError']) => (
                <li key={f.field}>
                  <span className="mono">{f.field}</span>: {f.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {redacted.length > 0 && (
        <span className="muted">Its secrets were not stored: set them on the test before running it.</span>
      )}
    </form>
  );
}

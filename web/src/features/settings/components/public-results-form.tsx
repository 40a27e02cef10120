import { useId, useState, type FormEvent } from 'react';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useUpdateProject } from '../api/update-project';
import { fieldErrorsOf } from '../utils/field-errors';
import { indexUrl } from '../utils/settings-form';
import { generalError } from './problem';
import { SaveActions } from './save-actions';

/** PublicResultsForm turns the project's public results on or off (project admins), with the index URL they are read at. */
export function PublicResultsForm({ project: p, editable }: { project: Schemas['Project']; editable: boolean }) {
  const [on, setOn] = useState(p.public_results);
  const [saved, setSaved] = useState(false);
  const update = useUpdateProject();
  const id = useId();

  const errs = update.error instanceof ApiError ? fieldErrorsOf(update.error.problem.errors, '', ['public_results'] as const) : undefined;
  const error = errs?.fields.public_results;
  const general = generalError(update.error, error !== undefined, errs?.other ?? []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    update.mutate(
      { slug: p.slug, body: { public_results: on } },
      {
        onSuccess: (stored) => {
          setOn(stored.public_results);
          setSaved(true);
        },
      },
    );
  };

  const url = indexUrl(location.origin, p.slug);
  return (
    <form className="card stack settings-form" onSubmit={submit} noValidate aria-label="Public results" id="public-results">
      <h2>Public results</h2>
      <label className="check">
        <input type="checkbox" checked={on} disabled={!editable} onChange={(e) => setOn(e.target.checked)}
          aria-describedby={[error ? `${id}-err` : '', `${id}-hint`].filter(Boolean).join(' ')} aria-invalid={error ? true : undefined} />
        Public results
      </label>
      {error && (
        <span className="field-error" id={`${id}-err`}>
          {error}
        </span>
      )}
      <span className="hint" id={`${id}-hint`}>
        Anyone may read this project&apos;s completed results at /fortio/data/index.tsv, as Fortio&apos;s report and other Barrage
        servers do.
      </span>
      <div className="settings-url">
        Index URL{' '}
        {p.public_results ? (
          <a className="mono" href={url} data-testid="index-url">
            {url}
          </a>
        ) : (
          <span className="mono" data-testid="index-url">
            {url}
          </span>
        )}
        {!p.public_results && <span className="muted"> (answers only once public results are on)</span>}
      </div>
      <SaveActions general={general} editable={editable} pending={update.isPending} saved={saved} label="Save public results" />
    </form>
  );
}

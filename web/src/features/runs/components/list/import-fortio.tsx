import { useId, useState, type ChangeEvent } from 'react';
import { Link } from 'react-router';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useProject } from '@/lib/project';
import { runName } from '@/lib/run-name';
import { useCreateImport } from '../../api/create-import';

type Outcome =
  | { file: string; state: 'pending' }
  | { file: string; state: 'imported'; run: Schemas['Run'] }
  | { file: string; state: 'failed'; message: string; errors: Schemas['FieldError'][] };

function failure(file: string, err: unknown): Outcome {
  if (err instanceof ApiError) {
    return { file, state: 'failed', message: err.problem.detail ?? err.problem.title, errors: err.problem.errors ?? [] };
  }
  return { file, state: 'failed', message: err instanceof Error ? err.message : 'Cannot reach the API', errors: [] };
}

/**
 * ImportFortio imports Fortio result JSON files as runs: each file is posted
 * as it is, with its name as the origin, and gets its own line: a link to
 * the run, or the API's reasons.
 */
export function ImportFortio() {
  const project = useProject();
  const create = useCreateImport();
  const id = useId();
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);

  const onFiles = async (e: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(e.target.files ?? []);
    e.target.value = '';
    if (files.length === 0) return;
    setOutcomes(files.map((f) => ({ file: f.name, state: 'pending' })));
    const set = (i: number, o: Outcome) => setOutcomes((all) => all.map((x, j) => (j === i ? o : x)));
    // One at a time: a folder of results should not flood the API.
    for (const [i, f] of files.entries()) {
      try {
        const run = await create.mutateAsync({ project, text: await f.text(), origin: f.name });
        set(i, { file: f.name, state: 'imported', run });
      } catch (err) {
        set(i, failure(f.name, err));
      }
    }
  };

  const busy = outcomes.some((o) => o.state === 'pending');
  return (
    <div className="import-fortio">
      <label htmlFor={id} className={`button${busy ? ' disabled' : ''}`} title="A Fortio result JSON (fortio load -json, /fortio/data/<ID>.json) or Nighthawk's fortio output">
        {busy ? 'Importing…' : 'Import Fortio JSON'}
      </label>
      <input id={id} className="sr-only" type="file" accept=".json,application/json" multiple disabled={busy} onChange={onFiles} aria-label="Import Fortio JSON files" />
      {outcomes.length > 0 && (
        <ul className="import-results" aria-label="Imports" aria-live="polite">
          {outcomes.map((o, i) => (
            <li key={i} data-state={o.state}>
              <span className="mono">{o.file}</span>:{' '}
              {o.state === 'pending' ? (
                <span className="muted">importing…</span>
              ) : o.state === 'imported' ? (
                <>
                  imported as <Link to={`/runs/${o.run.id}`}>{runName(o.run)}</Link>
                </>
              ) : (
                <span className="field-error">
                  {o.message}
                  {o.errors.length > 0 && (
                    <ul>
                      {o.errors.map((e, j) => (
                        <li key={j}>
                          <span className="mono">{e.field}</span>: {e.message}
                        </li>
                      ))}
                    </ul>
                  )}
                </span>
              )}
            </li>
          ))}
          {!busy && (
            <li className="import-clear">
              <button type="button" className="link" onClick={() => setOutcomes([])}>
                Dismiss
              </button>
            </li>
          )}
        </ul>
      )}
    </div>
  );
}

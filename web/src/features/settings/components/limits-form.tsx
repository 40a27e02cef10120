import { useId, useState, type FormEvent } from 'react';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useUpdateProject } from '../api/update-project';
import { draftOf, limitNames, limitsErrorsOf, toLimitsUpdate, type LimitErrors, type LimitName, type LimitsDraft } from '../utils/limits-form';
import { SaveActions } from './save-actions';

const labels: Record<LimitName, { label: string; hint: string }> = {
  max_qps: { label: 'Max QPS', hint: 'Highest total target rate of one run' },
  max_connections: { label: 'Max connections', hint: 'Most connections of one run' },
  max_duration: { label: 'Max duration', hint: 'Longest run: 30m, 1h or a number of seconds' },
  max_agents: { label: 'Max agents', hint: 'Most agents one run may use' },
  max_concurrent_runs: { label: 'Max concurrent runs', hint: 'Runs queued or in progress at once; one more is refused until one ends' },
};

/**
 * LimitsForm shows the limits in force in a project: its own where it sets
 * one, else the server's. Admins edit them: a blank field is the server's
 * limit, and none may be above it.
 */
export function LimitsForm({ project: p, editable }: { project: Schemas['Project']; editable: boolean }) {
  const [draft, setDraft] = useState<LimitsDraft>(() => draftOf(p.limits));
  const [local, setLocal] = useState<LimitErrors>({});
  const [saved, setSaved] = useState(false);
  const update = useUpdateProject();
  const id = useId();

  const api = update.error instanceof ApiError ? limitsErrorsOf(update.error.problem.errors) : undefined;
  const errors: LimitErrors = { ...api?.fields, ...local };
  const general =
    update.error && !(api && Object.keys(api.fields).length > 0)
      ? [update.error instanceof ApiError ? (update.error.problem.detail ?? update.error.problem.title) : 'Cannot reach the API', ...(api?.other ?? [])].join('; ')
      : api?.other.join('; ');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    const read = toLimitsUpdate(draft);
    if (!read.ok) {
      setLocal(read.errors);
      return;
    }
    setLocal({});
    update.mutate(
      { slug: p.slug, body: { limits: read.body } },
      {
        onSuccess: (stored) => {
          setDraft(draftOf(stored.limits));
          setSaved(true);
        },
      },
    );
  };

  const own = new Set<LimitName>(p.limits.overridden);
  return (
    <form className="card stack settings-form" onSubmit={submit} noValidate aria-label="Project limits" id="limits">
      <h2>Limits</h2>
      <p className="hint" style={{ margin: 0 }}>
        What this project&apos;s runs may ask for. A run over a limit is refused; so is one more run than the concurrent runs
        limit while the others are queued or in progress.
      </p>
      {!editable ? (
        <dl className="limits-list">
          {limitNames.map((n) => (
            <div key={n}>
              <dt>{labels[n].label}</dt>
              <dd data-testid={`limit-${n}`}>
                <span className="mono">{String(p.limits[n])}</span>{' '}
                <span className="muted">{own.has(n) ? '(this project)' : '(server limit)'}</span>
              </dd>
            </div>
          ))}
        </dl>
      ) : (
        <div className="limits-grid">
          {limitNames.map((n) => (
            <label key={n} className="field" htmlFor={`${id}-${n}`}>
              {labels[n].label} <span className="hint">{labels[n].hint}; server limit {String(p.limits.deployment[n])}</span>
              <input id={`${id}-${n}`} value={draft[n]} inputMode={n === 'max_duration' ? 'text' : 'decimal'}
                placeholder={`${String(p.limits.deployment[n])} (server limit)`}
                onChange={(e) => setDraft((d) => ({ ...d, [n]: e.target.value }))}
                aria-invalid={errors[n] ? true : undefined} aria-describedby={errors[n] ? `${id}-${n}-err` : undefined} />
              {errors[n] && (
                <span className="field-error" id={`${id}-${n}-err`}>
                  {errors[n]}
                </span>
              )}
            </label>
          ))}
        </div>
      )}
      <SaveActions general={general} editable={editable} pending={update.isPending} saved={saved} label="Save limits" />
    </form>
  );
}

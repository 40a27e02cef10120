import { useId, useState, type FormEvent } from 'react';
import { ErrorState, Loading } from '@/components/ui/states';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useProject } from '@/lib/project';
import { can, type Role } from '@/lib/roles';
import { useProjectSettings } from '../api/get-project';
import { useUpdateProject } from '../api/update-project';
import { indexUrl, parseAllowList, settingsErrorsOf, type AllowList } from '../utils/settings-form';
import { LimitsForm } from './limits-form';
import { SaveActions } from './save-actions';
import './settings.css';

/** SettingsPage shows the current project's settings; role is the caller's there, and only admins edit. */
export function SettingsPage({ role }: { role: Role | undefined }) {
  const slug = useProject();
  const project = useProjectSettings(slug);
  if (project.isPending) return <Loading />;
  if (project.error) return <ErrorState error={project.error} retry={() => project.refetch()} />;
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Settings</h1>
      <p className="muted" style={{ margin: 0 }}>
        Project <strong>{project.data.name}</strong> <span className="mono">({project.data.slug})</span>
      </p>
      <SettingsForm key={project.data.id} project={project.data} editable={can(role, 'admin')} />
      <LimitsForm key={`limits-${project.data.id}`} project={project.data} editable={can(role, 'admin')} />
    </div>
  );
}

function SettingsForm({ project: p, editable }: { project: Schemas['Project']; editable: boolean }) {
  const [publicResults, setPublicResults] = useState(p.public_results);
  const [allowList, setAllowList] = useState(p.target_allow_list.join('\n'));
  const [sent, setSent] = useState<AllowList>({ entries: [], lines: [] });
  const [saved, setSaved] = useState(false);
  const update = useUpdateProject();
  const id = useId();

  const errs = update.error instanceof ApiError ? settingsErrorsOf(update.error.problem.errors, sent) : undefined;
  const general =
    update.error && !(errs && (errs.allowList.length > 0 || errs.publicResults))
      ? [update.error instanceof ApiError ? (update.error.problem.detail ?? update.error.problem.title) : 'Cannot reach the API', ...(errs?.other ?? [])].join('; ')
      : errs?.other.join('; ');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const list = parseAllowList(allowList);
    setSent(list);
    setSaved(false);
    update.mutate(
      { slug: p.slug, body: { public_results: publicResults, target_allow_list: list.entries } },
      {
        // The form shows what the API stored, as it stored it.
        onSuccess: (stored) => {
          setPublicResults(stored.public_results);
          setAllowList(stored.target_allow_list.join('\n'));
          setSaved(true);
        },
      },
    );
  };

  const url = indexUrl(location.origin, p.slug);
  return (
    <form className="card stack settings-form" onSubmit={submit} noValidate aria-label="Project settings">
      {!editable && (
        <p className="muted" role="note" style={{ margin: 0 }}>
          Only admins of this project can change its settings.
        </p>
      )}
      <section className="stack" style={{ gap: 6 }}>
        <label className="check">
          <input type="checkbox" checked={publicResults} disabled={!editable} onChange={(e) => setPublicResults(e.target.checked)}
            aria-describedby={`${id}-public-hint`} aria-invalid={errs?.publicResults ? true : undefined} />
          Public results
        </label>
        <span className="hint" id={`${id}-public-hint`}>
          Anyone may read this project&apos;s completed results at /fortio/data/index.tsv, as Fortio&apos;s report and other Barrage
          servers do.
        </span>
        {errs?.publicResults && <span className="field-error">{errs.publicResults}</span>}
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
      </section>
      <label className="field" htmlFor={`${id}-allow`}>
        Target allow list{' '}
        <span className="hint">
          One entry per line: host, IP, CIDR or * (every public address), optional :port. Runs reach only the targets
          listed here, sync sources also public addresses; link-local and cloud metadata addresses are always refused.
        </span>
        <textarea id={`${id}-allow`} rows={8} value={allowList} readOnly={!editable} spellCheck={false}
          onChange={(e) => setAllowList(e.target.value)} placeholder={'fortio.lab:8080\n10.20.0.0/16'}
          aria-invalid={errs && errs.allowList.length > 0 ? true : undefined}
          aria-describedby={errs && errs.allowList.length > 0 ? `${id}-allow-err` : undefined} />
        {errs && errs.allowList.length > 0 && (
          <ul className="field-error settings-errors" id={`${id}-allow-err`}>
            {errs.allowList.map((m, i) => (
              <li key={i}>{m}</li>
            ))}
          </ul>
        )}
      </label>
      <SaveActions general={general} editable={editable} pending={update.isPending} saved={saved} label="Save settings" />
    </form>
  );
}

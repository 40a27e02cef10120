import { useId, useState, type FormEvent } from 'react';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useUpdateProject } from '../api/update-project';
import { allowListErrorsOf, parseAllowList, type AllowList } from '../utils/settings-form';
import { generalError } from './problem';
import { SaveActions } from './save-actions';

/**
 * AllowListForm is the project's narrowing of the organisation's target
 * policy: the targets its runs, syncs and remote write may reach. Project
 * admins edit it within the policy; the API's refusal of an entry (422 for
 * one that does not parse, 403 for one beyond the policy) is shown under
 * the list, naming the line. Entries an org admin granted beyond the
 * policy are listed below it.
 */
export function AllowListForm({ project: p, editable }: { project: Schemas['Project']; editable: boolean }) {
  const [text, setText] = useState(p.target_allow_list.join('\n'));
  const [sent, setSent] = useState<AllowList>({ entries: [], lines: [] });
  const [saved, setSaved] = useState(false);
  const update = useUpdateProject();
  const id = useId();

  const errs = update.error instanceof ApiError ? allowListErrorsOf(update.error.problem.errors, sent) : undefined;
  const listErrors = errs?.list ?? [];
  const general = generalError(update.error, listErrors.length > 0, errs?.other ?? []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const list = parseAllowList(text);
    setSent(list);
    setSaved(false);
    update.mutate(
      { slug: p.slug, body: { target_allow_list: list.entries } },
      {
        // The form shows what the API stored, as it stored it.
        onSuccess: (stored) => {
          setText(stored.target_allow_list.join('\n'));
          setSaved(true);
        },
      },
    );
  };

  return (
    <form className="stack settings-form" onSubmit={submit} noValidate aria-label="Project allow list">
      <h3>This project&apos;s allow list</h3>
      <label className="field" htmlFor={`${id}-allow`}>
        Target allow list{' '}
        <span className="hint">
          One entry per line: host, IP, CIDR or * (every public address), optional :port. Runs reach only the targets
          listed here, sync sources also public addresses; link-local and cloud metadata addresses are always refused.
        </span>
        <textarea id={`${id}-allow`} rows={8} value={text} readOnly={!editable} spellCheck={false}
          onChange={(e) => setText(e.target.value)} placeholder={'fortio.lab:8080\n10.20.0.0/16'}
          aria-invalid={listErrors.length > 0 ? true : undefined}
          aria-describedby={listErrors.length > 0 ? `${id}-allow-err` : undefined} />
        {listErrors.length > 0 && (
          <ul className="field-error settings-errors" id={`${id}-allow-err`}>
            {listErrors.map((m, i) => (
              <li key={i}>{m}</li>
            ))}
          </ul>
        )}
      </label>
      <p className="hint" style={{ margin: 0 }} data-testid="allow-granted">
        {p.target_allow_granted.length === 0 ? (
          'No entries granted beyond the organisation’s policy.'
        ) : (
          <>
            Granted by an org admin beyond the organisation&apos;s policy (a project admin may keep or drop them, not add
            them): <span className="mono">{p.target_allow_granted.join(', ')}</span>
          </>
        )}
      </p>
      <SaveActions general={general} editable={editable} pending={update.isPending} saved={saved} label="Save allow list" />
    </form>
  );
}

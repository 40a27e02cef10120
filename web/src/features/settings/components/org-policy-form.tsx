import { useId, useState, type FormEvent } from 'react';
import { ErrorState, Loading } from '@/components/ui/states';
import { ApiError } from '@/lib/api-client';
import { useOrgTargetPolicy } from '../api/get-org-target-policy';
import { usePutOrgTargetPolicy } from '../api/put-org-target-policy';
import { allowListErrorsOf, parseAllowList, type AllowList } from '../utils/settings-form';
import { generalError } from './problem';
import { SaveActions } from './save-actions';

/**
 * OrgPolicyForm shows the organisation's target policy, the outer bound of
 * every project's allow list. The API shows it to org admins and project
 * admins (readable is false for others); org admins edit it.
 */
export function OrgPolicyForm({ readable, editable }: { readable: boolean; editable: boolean }) {
  const policy = useOrgTargetPolicy(readable);
  return (
    <div className="stack">
      <h3>Organisation policy</h3>
      {!readable ? (
        <p className="muted" role="note" style={{ margin: 0 }}>
          Only org admins and project admins can see the organisation&apos;s target policy.
        </p>
      ) : policy.isPending ? (
        <Loading />
      ) : policy.error ? (
        <ErrorState error={policy.error} retry={() => policy.refetch()} />
      ) : (
        <OrgPolicyEditor list={policy.data.target_allow_list} editable={editable} />
      )}
    </div>
  );
}

function OrgPolicyEditor({ list, editable }: { list: string[]; editable: boolean }) {
  const [text, setText] = useState(list.join('\n'));
  const [sent, setSent] = useState<AllowList>({ entries: [], lines: [] });
  const [saved, setSaved] = useState(false);
  const put = usePutOrgTargetPolicy();
  const id = useId();

  const errs = put.error instanceof ApiError ? allowListErrorsOf(put.error.problem.errors, sent) : undefined;
  const listErrors = errs?.list ?? [];
  const general = generalError(put.error, listErrors.length > 0, errs?.other ?? []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseAllowList(text);
    setSent(parsed);
    setSaved(false);
    put.mutate(parsed.entries, {
      onSuccess: (stored) => {
        setText(stored.target_allow_list.join('\n'));
        setSaved(true);
      },
    });
  };

  const described = [listErrors.length > 0 ? `${id}-err` : '', `${id}-hint`].filter(Boolean).join(' ');
  return (
    <form className="stack settings-form" onSubmit={submit} noValidate aria-label="Organisation target policy">
      <div className="field">
        <label htmlFor={`${id}-list`}>Organisation policy entries</label>
        <textarea id={`${id}-list`} rows={8} value={text} readOnly={!editable} spellCheck={false}
          onChange={(e) => setText(e.target.value)} aria-invalid={listErrors.length > 0 ? true : undefined}
          aria-describedby={described} />
        {listErrors.length > 0 && (
          <ul className="field-error settings-errors" id={`${id}-err`}>
            {listErrors.map((m, i) => (
              <li key={i}>{m}</li>
            ))}
          </ul>
        )}
        <span className="hint" id={`${id}-hint`}>
          What project admins may open in their projects&apos; allow lists, one entry per line.{' '}
          {editable
            ? 'A narrower policy stops what projects listed beyond it, except entries granted to a project.'
            : 'Only org admins can change it.'}{' '}
          The control plane&apos;s own addresses stay refused whatever it says.
        </span>
      </div>
      <SaveActions general={general} editable={editable} pending={put.isPending} saved={saved} label="Save organisation policy" />
    </form>
  );
}

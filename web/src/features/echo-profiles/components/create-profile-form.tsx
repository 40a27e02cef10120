import { useId, useState, type FormEvent } from 'react';
import { useCreateEchoProfile } from '../api/create-echo-profile';
import { ProfileFields, profileErrors, type ProfileDraft } from './profile-fields';

const empty: ProfileDraft = { name: '', content: '' };

/**
 * CreateProfileForm adds a fault profile (admins). The API checks the content
 * as the echo would and answers 422 naming the field: the form shows it under
 * that field, anything else above the button.
 */
export function CreateProfileForm({ project }: { project: string }) {
  const [draft, setDraft] = useState(empty);
  const create = useCreateEchoProfile();
  const id = useId();
  const { fields, other } = profileErrors(create.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { project, name: draft.name.trim(), content: draft.content.trim() },
      { onSuccess: () => setDraft(empty) },
    );
  };
  return (
    <form className="card stack" onSubmit={submit} noValidate aria-label="New profile">
      <h2 style={{ margin: 0 }}>New profile</h2>
      <ProfileFields id={id} draft={draft} onChange={setDraft} fields={fields} />
      {other && <span className="field-error" role="alert">{other}</span>}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending || draft.name.trim() === ''}>
          {create.isPending ? 'Adding…' : 'Add profile'}
        </button>
      </div>
    </form>
  );
}

import { useId, useState, type FormEvent } from 'react';
import type { Schemas } from '@/lib/api-client';
import { useUpdateEchoProfile } from '../api/update-echo-profile';
import { ProfileFields, profileErrors } from './profile-fields';

interface Props {
  project: string;
  profile: Schemas['EchoProfile'];
  /** onDone closes the form: after a save, or on Cancel. */
  onDone: () => void;
}

/**
 * EditProfileForm changes a profile's name or content (admins) with PATCH,
 * sending only what changed; the API pushes a new content to the echoes the
 * profile is active on. Its 422 shows under the field it names, a taken name
 * (409) or anything else above the buttons.
 */
export function EditProfileForm({ project, profile, onDone }: Props) {
  const [draft, setDraft] = useState({ name: profile.name, content: profile.content });
  const update = useUpdateEchoProfile();
  const id = useId();
  const { fields, other } = profileErrors(update.error);
  const body: Schemas['EchoProfileUpdate'] = {};
  if (draft.name.trim() !== profile.name) body.name = draft.name.trim();
  if (draft.content.trim() !== profile.content) body.content = draft.content.trim();
  const changed = Object.keys(body).length > 0;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ project, id: profile.id, body }, { onSuccess: onDone });
  };
  return (
    <form className="card stack" onSubmit={submit} noValidate aria-label={`Edit ${profile.name}`}>
      <h2 style={{ margin: 0 }}>Edit {profile.name}</h2>
      <ProfileFields id={id} draft={draft} onChange={setDraft} fields={fields} />
      {other && <span className="field-error" role="alert">{other}</span>}
      <div className="actions">
        <button type="submit" className="primary" disabled={update.isPending || !changed || draft.name.trim() === ''}>
          {update.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

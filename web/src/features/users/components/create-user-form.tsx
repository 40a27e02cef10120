import { useId, useState, type FormEvent } from 'react';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useCreateUser } from '../api/create-user';
import { problemText } from './user-action-dialog';

/** minPassword is the API's shortest password. */
const minPassword = 12;

/**
 * CreateUserForm adds a user to the organisation: an email, a name and an
 * initial password, or none for one the API generates. onCreated gets the
 * answer, the only one that holds a generated password.
 */
export function CreateUserForm({ onCreated }: { onCreated: (u: Schemas['UserCreated']) => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const create = useCreateUser();
  const id = useId();
  const fields = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  const short = password !== '' && [...password].length < minPassword;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body: Schemas['UserCreate'] = { email: email.trim() };
    if (body.email === '' || short) return;
    if (name.trim() !== '') body.name = name.trim();
    if (password !== '') body.password = password;
    create.mutate(body, {
      onSuccess: (u) => {
        setEmail('');
        setName('');
        setPassword('');
        onCreated(u);
      },
    });
  };
  const err = (k: string) => (fields[k] ? `${id}-${k}-err` : undefined);
  return (
    <form className="card stack" onSubmit={submit} noValidate aria-label="Create user">
      <h2 style={{ margin: 0, fontSize: 16 }}>Create a user</h2>
      <p className="muted" style={{ margin: 0 }}>
        A new user belongs to no project until a project admin adds them on the Members page.
      </p>
      <div className="form-grid">
        <label className="field" htmlFor={`${id}-email`}>
          Email
          <input id={`${id}-email`} type="email" autoComplete="off" value={email} maxLength={254} onChange={(e) => setEmail(e.target.value)}
            aria-invalid={fields.email ? true : undefined} aria-describedby={err('email')} />
          {fields.email && <span className="field-error" id={`${id}-email-err`}>{fields.email}</span>}
        </label>
        <label className="field" htmlFor={`${id}-name`}>
          Name <span className="hint">optional</span>
          <input id={`${id}-name`} value={name} maxLength={100} onChange={(e) => setName(e.target.value)}
            aria-invalid={fields.name ? true : undefined} aria-describedby={err('name')} />
          {fields.name && <span className="field-error" id={`${id}-name-err`}>{fields.name}</span>}
        </label>
        <label className="field" htmlFor={`${id}-password`}>
          Initial password <span className="hint">empty: one is generated and shown once</span>
          <input id={`${id}-password`} type="password" autoComplete="new-password" value={password} maxLength={1024}
            onChange={(e) => setPassword(e.target.value)} aria-invalid={short || fields.password ? true : undefined}
            aria-describedby={short || fields.password ? `${id}-password-err` : undefined} />
          {(short || fields.password) && (
            <span className="field-error" id={`${id}-password-err`}>{fields.password ?? `at least ${minPassword} characters`}</span>
          )}
        </label>
      </div>
      {create.error && Object.keys(fields).length === 0 && (
        <span className="field-error" role="alert">
          {problemText(create.error)}
        </span>
      )}
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending || email.trim() === '' || short}>
          {create.isPending ? 'Creating…' : 'Create user'}
        </button>
      </div>
    </form>
  );
}

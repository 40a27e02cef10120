import { useId, useState, type FormEvent } from 'react';
import { ApiError, type Schemas } from '@/lib/api-client';
import type { Role } from '@/lib/roles';
import { useCreateToken } from '../api/create-token';
import { expiresAt, expiryChoices } from '../utils/expiry';

const roles: Role[] = ['viewer', 'runner', 'admin'];

/** problemText is what a failed call says to the user. */
export function problemText(err: unknown): string {
  return err instanceof ApiError ? (err.problem.detail ?? err.problem.title) : 'Cannot reach the API';
}

/**
 * CreateTokenForm mints a project token: a name, a role (never more than the
 * caller's, the API checks) and a lifetime. onCreated gets the answer, the
 * only one that holds the secret.
 */
export function CreateTokenForm({ slug, onCreated }: { slug: string; onCreated: (t: Schemas['TokenCreated']) => void }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('runner');
  const [days, setDays] = useState<number>(expiryChoices[0].days);
  const create = useCreateToken();
  const id = useId();
  const fields = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const n = name.trim();
    if (n === '') return;
    create.mutate({ slug, name: n, role, expires_at: expiresAt(days) }, {
      onSuccess: (t) => {
        setName('');
        onCreated(t);
      },
    });
  };
  return (
    <form className="card stack" onSubmit={submit} noValidate aria-label="Create token">
      <h2 style={{ margin: 0, fontSize: 16 }}>Create a token</h2>
      <label className="field" htmlFor={`${id}-name`}>
        Name <span className="hint">what uses it, e.g. nightly CI</span>
        <input id={`${id}-name`} value={name} maxLength={100} onChange={(e) => setName(e.target.value)}
          aria-invalid={fields.name ? true : undefined} aria-describedby={fields.name ? `${id}-name-err` : undefined} />
        {fields.name && <span className="field-error" id={`${id}-name-err`}>{fields.name}</span>}
      </label>
      <label className="field" htmlFor={`${id}-role`}>
        Role
        <select id={`${id}-role`} value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <label className="field" htmlFor={`${id}-expiry`}>
        Expires after
        <select id={`${id}-expiry`} value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {expiryChoices.map((c) => (
            <option key={c.days} value={c.days}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      {create.error && !fields.name && (
        <span className="field-error" role="alert">
          {problemText(create.error)}
        </span>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending || name.trim() === ''}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}

import { useId, useState, type FormEvent } from 'react';
import { ErrorState, Loading } from '@/components/ui/states';
import { ApiError, type Schemas } from '@/lib/api-client';
import { formatTime } from '@/lib/format';
import { useProject } from '@/lib/project';
import { can, type Role } from '@/lib/roles';
import { useMembers } from '../api/list-members';
import { usePutMember } from '../api/put-member';
import { useRemoveMember } from '../api/remove-member';

const roles: Role[] = ['viewer', 'runner', 'admin'];

/** problemText is what a failed call says to the user. */
function problemText(err: unknown): string {
  return err instanceof ApiError ? (err.problem.detail ?? err.problem.title) : 'Cannot reach the API';
}

/**
 * MembersPage lists the current project's members; role is the caller's
 * there. Admins add members by email, change roles and remove members; the
 * API keeps the last admin (409), and the page shows its answer.
 */
export function MembersPage({ role }: { role: Role | undefined }) {
  const slug = useProject();
  const members = useMembers(slug);
  const put = usePutMember();
  const remove = useRemoveMember();
  const admin = can(role, 'admin');
  if (members.isPending) return <Loading />;
  if (members.error) return <ErrorState error={members.error} retry={() => members.refetch()} />;
  const failed = put.error ?? remove.error;
  const busy = put.isPending || remove.isPending;
  const change = (m: Schemas['Member'], next: Role) => {
    remove.reset();
    put.mutate({ slug, user: m.user.id, role: next });
  };
  const drop = (m: Schemas['Member']) => {
    put.reset();
    remove.mutate({ slug, user: m.user.id });
  };
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Members</h1>
      {!admin && (
        <p className="muted" role="note" style={{ margin: 0 }}>
          Only admins of this project can manage its members.
        </p>
      )}
      {failed && (
        <div className="field-error" role="alert">
          {problemText(failed)}
        </div>
      )}
      <div className="table-wrap">
      <table aria-label="Members">
        <thead>
          <tr>
            <th>Email</th>
            <th>Name</th>
            <th>Role</th>
            <th>Added</th>
            {admin && (
              <th>
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {members.data.items.map((m) => (
            <tr key={m.user.id}>
              <td className="mono">{m.user.email}</td>
              <td>{m.user.name}</td>
              <td>
                {admin ? (
                  <select aria-label={`Role of ${m.user.email}`} value={m.role} disabled={busy}
                    onChange={(e) => change(m, e.target.value as Role)}>
                    {roles.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                ) : (
                  m.role
                )}
              </td>
              <td>{formatTime(m.added_at)}</td>
              {admin && (
                <td>
                  <button className="link" disabled={busy} onClick={() => drop(m)} aria-label={`Remove ${m.user.email}`}>
                    Remove
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      {admin && <AddMember slug={slug} />}
    </div>
  );
}

/** AddMember adds a user of the organisation by email. */
function AddMember({ slug }: { slug: string }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const put = usePutMember();
  const id = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const user = email.trim();
    if (user === '') return;
    put.mutate({ slug, user, role }, { onSuccess: () => setEmail('') });
  };
  return (
    <form className="card stack" onSubmit={submit} noValidate aria-label="Add member">
      <label className="field" htmlFor={`${id}-email`}>
        Email <span className="hint">of a user of the organisation</span>
        <input id={`${id}-email`} type="email" value={email} onChange={(e) => setEmail(e.target.value)}
          aria-invalid={put.error ? true : undefined} aria-describedby={put.error ? `${id}-err` : undefined} />
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
      {put.error && (
        <span className="field-error" id={`${id}-err`}>
          {problemText(put.error)}
        </span>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={put.isPending || email.trim() === ''}>
          {put.isPending ? 'Adding…' : 'Add member'}
        </button>
      </div>
    </form>
  );
}

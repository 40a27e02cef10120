import { useState } from 'react';
import { ErrorState, Loading } from '@/components/ui/states';
import type { Schemas } from '@/lib/api-client';
import { formatAgo, formatTime } from '@/lib/format';
import { useNow } from '@/lib/use-now';
import { useUsers } from '../api/list-users';
import { actionsFor, actionText, type Caller, type UserAction } from '../utils/user-actions';
import { UserActionDialog } from './user-action-dialog';

/**
 * UsersTable lists the organisation's users matching q, page after page,
 * with a button per change; each opens a confirmation dialog.
 */
export function UsersTable({ q, caller }: { q: string; caller: Caller }) {
  const users = useUsers(q);
  const [open, setOpen] = useState<{ action: UserAction; user: Schemas['OrgUser'] }>();
  const now = Math.max(useNow(30_000), users.dataUpdatedAt);
  if (users.isPending) return <Loading />;
  if (users.error) return <ErrorState error={users.error} retry={() => users.refetch()} />;
  const items = users.data.pages.flatMap((p) => p.items);
  if (items.length === 0) {
    return <p className="state" style={{ margin: 0 }}>{q === '' ? 'No users yet.' : `No user's email or name contains “${q}”.`}</p>;
  }
  return (
    <>
      <div className="table-wrap">
        <table aria-label="Users" className="users-table">
          <thead>
            <tr>
              <th>Email</th>
              <th>Name</th>
              <th>Role</th>
              <th>State</th>
              <th>Projects</th>
              <th>Created</th>
              <th>Last sign-in</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((u) => {
              const self = u.id === caller.id;
              return (
                <tr key={u.id}>
                  <td className="mono">
                    {u.email}
                    {self && <span className="muted"> (you)</span>}
                  </td>
                  <td>{u.name}</td>
                  <td>{u.is_admin ? 'org admin' : 'member'}</td>
                  <td>
                    <span className={`badge ${u.disabled ? 'bad' : 'ok'}`}>{u.disabled ? 'disabled' : 'active'}</span>
                  </td>
                  <td>
                    {u.projects.length === 0 ? (
                      <span className="muted">{u.is_admin ? 'admin of all' : 'none'}</span>
                    ) : (
                      u.projects.map((p) => (
                        <span key={p.id} className="label-chip" title={p.name}>
                          {p.slug}: {p.role}
                        </span>
                      ))
                    )}
                  </td>
                  <td>{formatTime(u.created_at)}</td>
                  <td title={u.last_sign_in_at ? formatTime(u.last_sign_in_at) : undefined}>
                    {u.last_sign_in_at ? formatAgo(u.last_sign_in_at, now) : 'never'}
                  </td>
                  <td>
                    <span className="users-actions">
                      {actionsFor(u, caller).map((a) => (
                        <button key={a} type="button" className="link" aria-haspopup="dialog"
                          aria-label={`${actionText(a, u, self).button.replace('…', '')} ${u.email}`}
                          onClick={() => setOpen({ action: a, user: u })}>
                          {actionText(a, u, self).button}
                        </button>
                      ))}
                    </span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {users.hasNextPage && (
        <div className="row">
          <button type="button" disabled={users.isFetchingNextPage} onClick={() => void users.fetchNextPage()}>
            {users.isFetchingNextPage ? 'Loading…' : 'More users'}
          </button>
        </div>
      )}
      {open && (
        <UserActionDialog action={open.action} user={open.user} self={open.user.id === caller.id} onClose={() => setOpen(undefined)} />
      )}
    </>
  );
}

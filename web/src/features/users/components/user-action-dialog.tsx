import { Dialog } from '@/components/ui/dialog';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useResetPassword } from '../api/reset-password';
import { useUpdateUser } from '../api/update-user';
import { actionText, patchFor, type UserAction } from '../utils/user-actions';
import { ShownPassword } from './shown-password';

/** problemText is what a failed call says to the user. */
export function problemText(err: unknown): string {
  return err instanceof ApiError ? (err.problem.detail ?? err.problem.title) : 'Cannot reach the API';
}

/**
 * UserActionDialog confirms one change to a user and makes it. A refusal
 * (the organisation's last org admin: 409) stays in the dialog as an alert;
 * a reset password is shown in it once, until Done.
 */
export function UserActionDialog({ action, user, self, onClose }: {
  action: UserAction;
  user: Schemas['OrgUser'];
  self: boolean;
  onClose: () => void;
}) {
  const update = useUpdateUser();
  const reset = useResetPassword();
  const text = actionText(action, user, self);
  const m = action === 'reset' ? reset : update;
  if (reset.data) {
    return (
      // A dialog of its own (key): focus moves to its copy button.
      <Dialog key="password" title={`New password of ${user.email}`} onClose={onClose}>
        <p>Every session of theirs has ended ({reset.data.sessions_ended}).</p>
        <ShownPassword email={user.email} password={reset.data.password} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  const confirm = () => {
    if (action === 'reset') reset.mutate({ id: user.id });
    else update.mutate({ id: user.id, ...patchFor(action) }, { onSuccess: onClose });
  };
  return (
    <Dialog key="confirm" title={text.title} onClose={onClose}>
      <p>{text.body}</p>
      {m.error && (
        <p className="field-error" role="alert">
          {problemText(m.error)}
        </p>
      )}
      <div className="actions">
        <button type="button" className={text.danger ? 'danger' : 'primary'} disabled={m.isPending} onClick={confirm}>
          {m.isPending ? 'Working…' : text.confirm}
        </button>
        <button type="button" onClick={onClose} data-autofocus>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

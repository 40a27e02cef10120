import type { Schemas } from '@/lib/api-client';

/** UserAction is one change an org admin makes to a user from the list. */
export type UserAction = 'disable' | 'enable' | 'grant' | 'take' | 'reset';

/** The caller, as /me tells: their user id and whether they hold a session (not an API token). */
export interface Caller {
  id: string;
  session: boolean;
}

/**
 * actionsFor is what an org admin may do to u: enable or disable, grant or
 * take the org admin role, and reset the password of someone else who is
 * enabled, from a session (the API refuses tokens, disabled users and the
 * caller's own account, who changes theirs with the current one).
 */
export function actionsFor(u: Schemas['OrgUser'], caller: Caller): UserAction[] {
  const out: UserAction[] = [u.disabled ? 'enable' : 'disable', u.is_admin ? 'take' : 'grant'];
  if (!u.disabled && u.id !== caller.id && caller.session) out.push('reset');
  return out;
}

/** ActionText is what a row's button and its confirmation say. */
export interface ActionText {
  /** button opens the confirmation; its accessible name adds the email. */
  button: string;
  title: string;
  body: string;
  /** confirm is the confirming button's text. */
  confirm: string;
  danger: boolean;
}

/** actionText words action on u; self marks the caller's own row. */
export function actionText(action: UserAction, u: Schemas['OrgUser'], self: boolean): ActionText {
  const who = u.email;
  switch (action) {
    case 'disable':
      return {
        button: 'Disable…', title: `Disable ${who}?`, confirm: 'Disable', danger: true,
        body: `${self ? 'You' : 'They'} can no longer sign in; every session ends and every API token stops working at once. Enabling again restores the tokens, not the sessions.`,
      };
    case 'enable':
      return {
        button: 'Enable…', title: `Enable ${who}?`, confirm: 'Enable', danger: false,
        body: 'They can sign in again and their API tokens work again; their ended sessions stay ended.',
      };
    case 'grant':
      return {
        button: 'Make org admin…', title: `Make ${who} an org admin?`, confirm: 'Make org admin', danger: true,
        body: 'Org admins act as admin in every project and manage users, projects and the target policy.',
      };
    case 'take':
      return {
        button: 'Take org admin…', title: `Take the org admin role from ${who}?`, confirm: 'Take org admin', danger: true,
        body: `${self ? 'You keep' : 'They keep'} only the roles of the projects ${self ? 'you are' : 'they are'} a member of. The organisation always keeps one enabled org admin.`,
      };
    case 'reset':
      return {
        button: 'Reset password…', title: `Reset the password of ${who}?`, confirm: 'Reset password', danger: true,
        body: 'They get a new random password, shown to you once, and every session of theirs ends. Their API tokens keep working.',
      };
  }
}

/** patchFor is the PATCH /users/{user} body of a role or state action. */
export function patchFor(action: Exclude<UserAction, 'reset'>): Schemas['UserUpdate'] {
  switch (action) {
    case 'disable':
      return { disabled: true };
    case 'enable':
      return { disabled: false };
    case 'grant':
      return { org_admin: true };
    case 'take':
      return { org_admin: false };
  }
}

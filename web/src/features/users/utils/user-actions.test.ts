import type { Schemas } from '@/lib/api-client';
import { actionsFor, actionText, patchFor } from './user-actions';

const user = (over: Partial<Schemas['OrgUser']> = {}): Schemas['OrgUser'] => ({
  id: '0190b1c2-0000-7000-8000-00000000000b', email: 'bob@barrage.test', name: 'Bob', is_admin: false,
  created_at: '2026-01-01T00:00:00Z', projects: [], ...over,
});
const me = { id: '0190b1c2-0000-7000-8000-00000000000a', session: true };

describe('actionsFor', () => {
  it('offers every action on an enabled member', () => {
    expect(actionsFor(user(), me)).toEqual(['disable', 'grant', 'reset']);
  });
  it('enables a disabled user and resets no password of theirs', () => {
    expect(actionsFor(user({ disabled: true, is_admin: true }), me)).toEqual(['enable', 'take']);
  });
  it('resets neither the caller’s own password nor any from a token', () => {
    expect(actionsFor(user({ id: me.id, is_admin: true }), me)).toEqual(['disable', 'take']);
    expect(actionsFor(user(), { ...me, session: false })).toEqual(['disable', 'grant']);
  });
});

describe('actionText and patchFor', () => {
  it('names the user and the effect', () => {
    expect(actionText('take', user(), false)).toMatchObject({ title: 'Take the org admin role from bob@barrage.test?', confirm: 'Take org admin' });
    expect(actionText('disable', user(), true).body).toMatch(/^You can no longer sign in/);
    expect(actionText('reset', user(), false).body).toContain('shown to you once');
  });
  it('maps each change to its PATCH body', () => {
    expect([patchFor('disable'), patchFor('enable'), patchFor('grant'), patchFor('take')]).toEqual([
      { disabled: true }, { disabled: false }, { org_admin: true }, { org_admin: false },
    ]);
  });
});

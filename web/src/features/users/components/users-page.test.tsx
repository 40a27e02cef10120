import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse, problemResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { UsersPage } from './users-page';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

// jsdom has <dialog> without showModal and close; these do what the page needs of them.
beforeAll(() => {
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.open = true;
  };
  HTMLDialogElement.prototype.close ??= function (this: HTMLDialogElement) {
    this.open = false;
  };
});

const ann: Schemas['OrgUser'] = {
  id: '0190b1c2-0000-7000-8000-00000000000a', email: 'ann@barrage.test', name: 'Ann', is_admin: true,
  created_at: '2026-01-01T00:00:00Z', last_sign_in_at: '2026-01-02T00:00:00Z', projects: [],
};
const bob: Schemas['OrgUser'] = {
  id: '0190b1c2-0000-7000-8000-00000000000b', email: 'bob@barrage.test', name: 'Bob', is_admin: false,
  created_at: '2026-01-03T00:00:00Z', projects: [{ id: '0190b1c2-0000-7000-8000-0000000000p1', slug: 'default', name: 'Default', role: 'runner' }],
};
const me: Schemas['Me'] = { user: { id: ann.id, email: ann.email, name: ann.name, is_admin: true }, projects: [] };

const requests = (method: string) => fetchMock.mock.calls.map(([r]) => r).filter((r) => r.method === method);

afterEach(() => fetchMock.mockReset());

function renderPage(who: Schemas['Me'] = me) {
  renderRoutes([{ path: '/users', element: <UsersPage me={who} /> }], '/users');
}

describe('UsersPage', () => {
  it('lists users with their role, state, projects and last sign-in, and searches', async () => {
    fetchMock.mockImplementation(async (req) => {
      const q = new URL(req.url).searchParams.get('q');
      return jsonResponse({ items: q === 'bob' ? [bob] : [bob, ann] });
    });
    renderPage();
    const table = await screen.findByRole('table', { name: 'Users' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell').slice(0, 5).map((c) => c.textContent))).toEqual([
      ['bob@barrage.test', 'Bob', 'member', 'active', 'default: runner'],
      ['ann@barrage.test (you)', 'Ann', 'org admin', 'active', 'admin of all'],
    ]);
    expect(within(rows[0]!).getAllByRole('cell')[6]).toHaveTextContent('never');
    expect(within(rows[1]!).queryByRole('button', { name: /^Reset password/ })).toBeNull();
    await userEvent.setup().type(screen.getByRole('searchbox', { name: 'Email or name contains' }), 'bob{Enter}');
    await waitFor(() => expect(within(screen.getByRole('table', { name: 'Users' })).getAllByRole('row')).toHaveLength(2));
    expect(new URL(requests('GET').at(-1)!.url).searchParams.get('q')).toBe('bob');
  });

  it('confirms in a dialog that takes focus, shows the 409 there and gives focus back on Escape', async () => {
    fetchMock.mockImplementation(async (req) =>
      req.method === 'PATCH'
        ? problemResponse({ type: 'https://barrage.dev/problems/conflict', title: 'Conflict', status: 409,
          detail: 'ann@barrage.test is the organisation\'s last enabled org admin' }, 409)
        : jsonResponse({ items: [bob, ann] }),
    );
    renderPage();
    const user = userEvent.setup();
    const opener = await screen.findByRole('button', { name: 'Take org admin ann@barrage.test' });
    await user.click(opener);
    const dialog = screen.getByRole('dialog', { name: 'Take the org admin role from ann@barrage.test?' });
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Take org admin' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('last enabled org admin');
    const patch = requests('PATCH')[0]!;
    expect(new URL(patch.url).pathname).toBe(`/api/v1/users/${ann.id}`);
    expect(await patch.json()).toEqual({ org_admin: false });
    fireEvent(dialog, new Event('cancel', { cancelable: true }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(opener).toHaveFocus();
  });

  it('resets a password and shows the new one once', async () => {
    fetchMock.mockImplementation(async (req) =>
      req.method === 'POST'
        ? jsonResponse({ user: { id: bob.id, email: bob.email, name: bob.name, is_admin: false }, password: 'n3w-passw0rd-xyz', sessions_ended: 2 })
        : jsonResponse({ items: [bob, ann] }),
    );
    renderPage();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Reset password bob@barrage.test' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Reset password' }));
    const shown = await screen.findByRole('dialog', { name: 'New password of bob@barrage.test' });
    expect(within(shown).getByRole('textbox', { name: 'New password' })).toHaveValue('n3w-passw0rd-xyz');
    expect(within(shown).getByRole('button', { name: 'Copy password' })).toHaveFocus();
    expect(new URL(requests('POST')[0]!.url).pathname).toBe(`/api/v1/users/${bob.id}/password`);
    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    expect(screen.queryByText('n3w-passw0rd-xyz')).toBeNull();
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('shows a member only a note', () => {
    renderPage({ ...me, user: { ...me.user, is_admin: false } });
    expect(screen.getByRole('note')).toHaveTextContent('Only organisation admins');
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse, problemResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { MembersPage } from './members-page';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const member = (email: string, role: Schemas['Role'], id: string): Schemas['Member'] => ({
  user: { id, email, name: email.split('@')[0]!, is_admin: false },
  role,
  added_at: '2026-01-01T00:00:00Z',
});

const ann = member('ann@barrage.test', 'admin', '0190b1c2-0000-7000-8000-00000000000a');
const bob = member('bob@barrage.test', 'viewer', '0190b1c2-0000-7000-8000-00000000000b');

const requests = (method: string) => fetchMock.mock.calls.map(([r]) => r).filter((r) => r.method === method);

/** stub serves the members list and answers writes with write(req). */
function stub(write: (req: Request) => Promise<Response> | Response = () => jsonResponse({})) {
  let items = [ann, bob];
  fetchMock.mockImplementation(async (req) => {
    const path = new URL(req.url).pathname;
    if (req.method === 'GET' && path === '/api/v1/projects/default/members') return jsonResponse({ items });
    const res = await write(req);
    if (res.ok && req.method === 'PUT') {
      const m = (await res.clone().json()) as Schemas['Member'];
      items = [...items.filter((x) => x.user.id !== m.user.id), m].sort((a, b) => a.user.email.localeCompare(b.user.email));
    }
    if (res.ok && req.method === 'DELETE') items = items.filter((x) => !path.endsWith(`/${x.user.id}`));
    return res;
  });
}

function renderPage(role: Schemas['Role'] | undefined) {
  renderRoutes([{ path: '/members', element: <MembersPage role={role} /> }], '/members');
}

afterEach(() => fetchMock.mockReset());

describe('MembersPage', () => {
  it('lists members read-only for a viewer, with no add form', async () => {
    stub();
    renderPage('viewer');
    const table = await screen.findByRole('table', { name: 'Members' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell')[0]!.textContent)).toEqual(['ann@barrage.test', 'bob@barrage.test']);
    expect(within(rows[1]!).getAllByRole('cell')[2]).toHaveTextContent('viewer');
    expect(screen.getByRole('note')).toHaveTextContent('Only admins of this project can manage its members.');
    expect(screen.queryByRole('combobox')).toBeNull();
    expect(screen.queryByRole('button', { name: /Remove/ })).toBeNull();
    expect(screen.queryByRole('form', { name: 'Add member' })).toBeNull();
  });

  it('lets an admin add a member by email with PUT', async () => {
    const cid = member('cid@barrage.test', 'runner', '0190b1c2-0000-7000-8000-00000000000c');
    stub(() => jsonResponse(cid));
    renderPage('admin');
    const form = await screen.findByRole('form', { name: 'Add member' });
    const user = userEvent.setup();
    await user.type(within(form).getByLabelText(/^Email/), ' cid@barrage.test ');
    await user.selectOptions(within(form).getByLabelText('Role'), 'runner');
    await user.click(within(form).getByRole('button', { name: 'Add member' }));

    await waitFor(() => expect(requests('PUT')).toHaveLength(1));
    const [put] = requests('PUT');
    expect(new URL(put!.url).pathname).toBe('/api/v1/projects/default/members/cid%40barrage.test');
    expect(await put!.json()).toEqual({ role: 'runner' });
    expect(await screen.findByText('cid@barrage.test')).toBeInTheDocument();
    expect(within(form).getByLabelText(/^Email/)).toHaveValue('');
  });

  it('changes a role and removes a member by user id', async () => {
    stub((req) => (req.method === 'PUT' ? jsonResponse({ ...bob, role: 'runner' }) : new Response(null, { status: 204 })));
    renderPage('admin');
    const user = userEvent.setup();
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Role of bob@barrage.test' }), 'runner');
    await waitFor(() => expect(requests('PUT')).toHaveLength(1));
    expect(new URL(requests('PUT')[0]!.url).pathname).toBe(`/api/v1/projects/default/members/${bob.user.id}`);
    expect(await requests('PUT')[0]!.json()).toEqual({ role: 'runner' });
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Role of bob@barrage.test' })).toHaveValue('runner'));

    await user.click(screen.getByRole('button', { name: 'Remove bob@barrage.test' }));
    await waitFor(() => expect(screen.queryByText('bob@barrage.test')).toBeNull());
    expect(new URL(requests('DELETE')[0]!.url).pathname).toBe(`/api/v1/projects/default/members/${bob.user.id}`);
  });

  it('shows the API refusing to remove the last admin', async () => {
    stub(() =>
      problemResponse(
        {
          type: 'https://barrage.dev/problems/conflict',
          title: 'Conflict',
          status: 409,
          detail: "the project's last admin cannot be removed or demoted; make another member admin first",
        },
        409,
      ),
    );
    renderPage('admin');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Remove ann@barrage.test' }));
    expect(await screen.findByRole('alert')).toHaveTextContent("the project's last admin cannot be removed");
    expect(screen.getByText('ann@barrage.test')).toBeInTheDocument();
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse, problemResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { EchoProfilesPage } from './echo-profiles-page';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const profile = (name: string, content: string, n: number): Schemas['EchoProfile'] => ({
  id: `0190b1c2-0000-7000-8000-00000000000${n}`,
  project_id: '0190b1c2-0000-7000-8000-0000000000p1',
  name,
  content,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
});

const twenty = profile('twenty', 'status=503:20', 1);
const slow = profile('slow', 'delay=100ms:10', 2);

const echo1: Schemas['EchoServer'] = {
  name: 'echo-1',
  project: 'default',
  addrs: ['127.0.0.1:8080'],
  version: 'dev',
  applied_profile: 'twenty',
  started_at: '2026-01-01T00:00:00Z',
  active: { profile_id: twenty.id, name: 'twenty', content: 'status=503:20', activated_at: '2026-01-01T00:00:01Z' },
};
const echo2: Schemas['EchoServer'] = { name: 'echo-2', project: 'default', addrs: ['127.0.0.1:8081'], version: 'dev', started_at: '2026-01-01T00:00:00Z' };

const requests = (method: string) => fetchMock.mock.calls.map(([r]) => r).filter((r) => r.method === method);

/** stub serves the profile and echo lists and answers writes with write(req). */
function stub(write: (req: Request) => Promise<Response> | Response = () => jsonResponse({})) {
  let items = [twenty, slow];
  fetchMock.mockImplementation(async (req) => {
    const url = new URL(req.url);
    if (req.method === 'GET' && url.pathname === '/api/v1/echo-profiles') return jsonResponse({ items });
    if (req.method === 'GET' && url.pathname === '/api/v1/echo-servers') return jsonResponse({ items: [echo1, echo2] });
    const res = await write(req);
    if (res.ok && req.method === 'POST' && url.pathname === '/api/v1/echo-profiles') {
      items = [(await res.clone().json()) as Schemas['EchoProfile'], ...items];
    }
    if (res.ok && req.method === 'DELETE') items = items.filter((p) => !url.pathname.endsWith(`/${p.id}`));
    if (res.ok && req.method === 'PATCH') {
      const updated = (await res.clone().json()) as Schemas['EchoProfile'];
      items = items.map((p) => (p.id === updated.id ? updated : p));
    }
    return res;
  });
}

function renderPage(role: Schemas['Role'] | undefined) {
  renderRoutes([{ path: '/echo-profiles', element: <EchoProfilesPage role={role} /> }], '/echo-profiles');
}

const cells = (table: HTMLElement, col: number) =>
  within(table).getAllByRole('row').slice(1).map((r) => within(r).getAllByRole('cell')[col]!.textContent);

afterEach(() => fetchMock.mockReset());

describe('EchoProfilesPage', () => {
  it('lists profiles and echoes read-only for a viewer', async () => {
    stub();
    renderPage('viewer');
    const table = await screen.findByRole('table', { name: 'Echo profiles' });
    expect(cells(table, 0)).toEqual(['twenty', 'slow']);
    expect(cells(table, 1)).toEqual(['status=503:20', 'delay=100ms:10']);
    const echoes = await screen.findByRole('table', { name: 'Echo servers' });
    expect(cells(echoes, 0)).toEqual(['echo-1', 'echo-2']);
    expect(cells(echoes, 1)).toEqual(['127.0.0.1:8080', '127.0.0.1:8081']);
    expect(cells(echoes, 2)).toEqual(['twenty status=503:20', 'none']);
    expect(cells(echoes, 3)).toEqual(['twenty', 'none']);
    const listCall = requests('GET').find((r) => new URL(r.url).pathname === '/api/v1/echo-servers')!;
    expect(new URL(listCall.url).searchParams.get('project')).toBe('default');
    expect(screen.queryByRole('button', { name: /Activate|Edit|Delete/ })).toBeNull();
    expect(screen.queryByRole('form', { name: 'New profile' })).toBeNull();
  });

  it('lets a runner activate a profile on one echo, with no delete or create', async () => {
    stub(() => jsonResponse({ echoes: ['echo-2'] }));
    renderPage('runner');
    const user = userEvent.setup();
    await screen.findByRole('table', { name: 'Echo servers' });
    await user.selectOptions(screen.getByLabelText('Activate on'), 'echo-2');
    await user.click(screen.getByRole('button', { name: 'Activate slow' }));
    await waitFor(() => expect(requests('POST')).toHaveLength(1));
    const [post] = requests('POST');
    expect(new URL(post!.url).pathname).toBe(`/api/v1/echo-profiles/${slow.id}/activate`);
    expect(await post!.json()).toEqual({ echo: 'echo-2' });
    expect(await screen.findByRole('status')).toHaveTextContent('Activated slow on echo-2');
    expect(screen.queryByRole('button', { name: /Edit|Delete/ })).toBeNull();
    expect(screen.queryByRole('form', { name: 'New profile' })).toBeNull();
  });

  it('shows the API refusing to activate with no echo registered', async () => {
    stub(() => problemResponse({ type: 'about:blank', title: 'Conflict', status: 409, detail: 'no echo of the project is registered' }, 409));
    renderPage('runner');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Activate twenty' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('no echo of the project is registered');
    expect(await requests('POST')[0]!.json()).toEqual({});
  });

  it('lets an admin create a profile with POST and delete one', async () => {
    const none = profile('none', '', 3);
    stub((req) => (req.method === 'POST' ? jsonResponse(none, 201) : new Response(null, { status: 204 })));
    renderPage('admin');
    const form = await screen.findByRole('form', { name: 'New profile' });
    const user = userEvent.setup();
    await user.type(within(form).getByLabelText('Name'), ' none ');
    await user.click(within(form).getByRole('button', { name: 'Add profile' }));
    await waitFor(() => expect(requests('POST')).toHaveLength(1));
    const [post] = requests('POST');
    expect(new URL(post!.url).pathname).toBe('/api/v1/echo-profiles');
    expect(await post!.json()).toEqual({ project: 'default', name: 'none', content: '' });
    const table = screen.getByRole('table', { name: 'Echo profiles' });
    await waitFor(() => expect(cells(table, 0)).toEqual(['none', 'twenty', 'slow']));
    expect(within(form).getByLabelText('Name')).toHaveValue('');

    await user.click(screen.getByRole('button', { name: 'Delete twenty' }));
    await waitFor(() => expect(cells(table, 0)).toEqual(['none', 'slow']));
    expect(new URL(requests('DELETE')[0]!.url).pathname).toBe(`/api/v1/echo-profiles/${twenty.id}`);
  });

  it("shows the API's 422 field error under the content field", async () => {
    stub(() =>
      problemResponse(
        {
          type: 'https://barrage.dev/problems/validation',
          title: 'Validation failed',
          status: 422,
          errors: [{ field: 'content', message: 'status=600:20: bad status code 600' }],
        },
        422,
      ),
    );
    renderPage('admin');
    const form = await screen.findByRole('form', { name: 'New profile' });
    const user = userEvent.setup();
    await user.type(within(form).getByLabelText('Name'), 'bad');
    await user.type(within(form).getByLabelText(/^Content/), 'status=600:20');
    await user.click(within(form).getByRole('button', { name: 'Add profile' }));
    const content = within(form).getByLabelText(/^Content/);
    await waitFor(() => expect(content).toHaveAttribute('aria-invalid', 'true'));
    expect(content).toHaveAccessibleDescription('status=600:20: bad status code 600');
    expect(within(form).getByLabelText('Name')).not.toHaveAttribute('aria-invalid');
    expect(content).toHaveValue('status=600:20');
    expect(await requests('POST')[0]!.json()).toEqual({ project: 'default', name: 'bad', content: 'status=600:20' });
  });
  it('lets an admin edit a profile with PATCH of what changed, then closes the form', async () => {
    stub((req) => (req.method === 'PATCH' ? jsonResponse({ ...twenty, content: 'status=503:50', updated_at: '2026-01-02T00:00:00Z' }) : jsonResponse({})));
    renderPage('admin');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit twenty' }));
    const form = screen.getByRole('form', { name: 'Edit twenty' });
    expect(within(form).getByLabelText('Name')).toHaveValue('twenty');
    const content = within(form).getByLabelText(/^Content/);
    expect(content).toHaveValue('status=503:20');
    const save = within(form).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled(); // nothing changed yet
    await user.clear(content);
    await user.type(content, ' status=503:50 ');
    const serverLists = () => requests('GET').filter((r) => new URL(r.url).pathname === '/api/v1/echo-servers').length;
    const listsBefore = serverLists();
    await user.click(save);
    await waitFor(() => expect(requests('PATCH')).toHaveLength(1));
    const [patch] = requests('PATCH');
    expect(new URL(patch!.url).pathname).toBe(`/api/v1/echo-profiles/${twenty.id}`);
    expect(await patch!.json()).toEqual({ content: 'status=503:50' });
    const table = screen.getByRole('table', { name: 'Echo profiles' });
    await waitFor(() => expect(cells(table, 1)).toEqual(['status=503:50', 'delay=100ms:10']));
    expect(screen.queryByRole('form', { name: 'Edit twenty' })).toBeNull();
    // The echo list is read again: the API pushed the new content to the echoes.
    expect(serverLists()).toBeGreaterThan(listsBefore);
  });

  it("shows the API's 422 under the edited field and keeps the form open; Cancel closes it", async () => {
    stub(() =>
      problemResponse(
        {
          type: 'https://barrage.dev/problems/validation',
          title: 'Validation failed',
          status: 422,
          errors: [{ field: 'content', message: 'delay=soon: bad duration' }],
        },
        422,
      ),
    );
    renderPage('admin');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit slow' }));
    const form = screen.getByRole('form', { name: 'Edit slow' });
    const name = within(form).getByLabelText('Name');
    const content = within(form).getByLabelText(/^Content/);
    await user.clear(name);
    await user.type(name, 'slower');
    await user.clear(content);
    await user.type(content, 'delay=soon');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(content).toHaveAttribute('aria-invalid', 'true'));
    expect(content).toHaveAccessibleDescription('delay=soon: bad duration');
    expect(name).not.toHaveAttribute('aria-invalid');
    expect(within(form).queryByRole('alert')).toBeNull();
    expect(await requests('PATCH')[0]!.json()).toEqual({ name: 'slower', content: 'delay=soon' });
    expect(cells(screen.getByRole('table', { name: 'Echo profiles' }), 0)).toEqual(['twenty', 'slow']);
    await user.click(within(form).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('form', { name: 'Edit slow' })).toBeNull();
  });

  it('shows a taken name (409) above the buttons of the edit form', async () => {
    stub(() => problemResponse({ type: 'https://barrage.dev/problems/conflict', title: 'Conflict', status: 409, detail: 'an echo profile named "twenty" exists' }, 409));
    renderPage('admin');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit slow' }));
    const form = screen.getByRole('form', { name: 'Edit slow' });
    const name = within(form).getByLabelText('Name');
    await user.clear(name);
    await user.type(name, 'twenty');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('an echo profile named "twenty" exists');
    expect(name).not.toHaveAttribute('aria-invalid');
    expect(await requests('PATCH')[0]!.json()).toEqual({ name: 'twenty' });
  });
});

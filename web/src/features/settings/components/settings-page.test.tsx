import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse, problemResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { SettingsPage } from './settings-page';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const project = (over: Partial<Schemas['Project']> = {}): Schemas['Project'] => ({
  id: '0190b1c2-0000-7000-8000-0000000000p1',
  slug: 'default',
  name: 'Default',
  description: '',
  public_results: false,
  target_allow_list: ['fortio.lab:8080', '10.20.0.0/16'],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  ...over,
});

const requests = (method: string, path: string) =>
  fetchMock.mock.calls.map(([r]) => r).filter((r) => r.method === method && new URL(r.url).pathname === path);

/** stub answers GET with the project and PATCH with patch(body). */
function stub(patch: (body: Schemas['ProjectUpdate']) => Response) {
  let current = project();
  fetchMock.mockImplementation(async (req) => {
    if (req.method === 'PATCH') {
      const res = patch((await req.clone().json()) as Schemas['ProjectUpdate']);
      if (res.ok) current = (await res.clone().json()) as Schemas['Project'];
      return res;
    }
    return jsonResponse(current);
  });
}

function renderPage(role: Schemas['Role'] | undefined) {
  renderRoutes([{ path: '/settings', element: <SettingsPage role={role} /> }], '/settings');
}

afterEach(() => fetchMock.mockReset());

describe('SettingsPage', () => {
  it('shows the settings and the index URL, and lets an admin save them with PATCH', async () => {
    stub((body) => jsonResponse(project({ ...body, updated_at: '2026-01-02T00:00:00Z' })));
    renderPage('admin');
    const form = await screen.findByRole('form', { name: 'Project settings' });
    expect(requests('GET', '/api/v1/projects/default')).toHaveLength(1);
    expect(screen.getByTestId('index-url')).toHaveTextContent(`${location.origin}/fortio/data/index.tsv?project=default`);
    const toggle = within(form).getByRole('checkbox', { name: 'Public results' });
    expect(toggle).not.toBeChecked();
    expect(toggle).toHaveAccessibleDescription(/Anyone may read this project's completed results at \/fortio\/data\/index\.tsv/);
    const list = within(form).getByLabelText(/^Target allow list/);
    expect(list).toHaveValue('fortio.lab:8080\n10.20.0.0/16');
    expect(list.closest('label')).toHaveTextContent('link-local and cloud metadata addresses are always refused');

    const user = userEvent.setup();
    await user.click(toggle);
    await user.type(list, '\n\n  192.168.1.0/24:9000  \n');
    await user.click(within(form).getByRole('button', { name: 'Save settings' }));

    expect(await within(form).findByRole('status')).toHaveTextContent('Saved.');
    const [patch] = requests('PATCH', '/api/v1/projects/default');
    expect(await patch!.json()).toEqual({ public_results: true, target_allow_list: ['fortio.lab:8080', '10.20.0.0/16', '192.168.1.0/24:9000'] });
    // The project query is fetched again, and the form shows what was stored.
    await waitFor(() => expect(requests('GET', '/api/v1/projects/default').length).toBeGreaterThanOrEqual(2));
    expect(list).toHaveValue('fortio.lab:8080\n10.20.0.0/16\n192.168.1.0/24:9000');
    expect(screen.getByRole('link', { name: `${location.origin}/fortio/data/index.tsv?project=default` })).toBeInTheDocument();
  });

  it('shows which allow list line the API refused', async () => {
    stub(() =>
      problemResponse(
        {
          type: 'https://barrage.dev/problems/validation',
          title: 'Validation failed',
          status: 422,
          detail: 'the project has invalid fields',
          errors: [{ field: 'target_allow_list[2]', message: '169.254.169.254: link-local and cloud metadata addresses are always refused' }],
        },
        422,
      ),
    );
    renderPage('admin');
    const form = await screen.findByRole('form', { name: 'Project settings' });
    const list = within(form).getByLabelText(/^Target allow list/);
    const user = userEvent.setup();
    await user.clear(list);
    await user.type(list, 'fortio.lab:8080\n\n10.0.0.0/8\n169.254.169.254');
    await user.click(within(form).getByRole('button', { name: 'Save settings' }));

    await waitFor(() => expect(list).toHaveAttribute('aria-invalid', 'true'));
    expect(list).toHaveAccessibleDescription(
      'line 4 (169.254.169.254): 169.254.169.254: link-local and cloud metadata addresses are always refused',
    );
    expect(within(form).queryByRole('alert')).toBeNull();
    expect(await requests('PATCH', '/api/v1/projects/default')[0]!.json()).toEqual({
      public_results: false,
      target_allow_list: ['fortio.lab:8080', '10.0.0.0/8', '169.254.169.254'],
    });
  });

  it('shows the problem of a refused save', async () => {
    stub(() => problemResponse({ type: 'https://barrage.dev/problems/forbidden', title: 'Forbidden', status: 403, detail: 'project admins only' }, 403));
    renderPage('admin');
    const form = await screen.findByRole('form', { name: 'Project settings' });
    await userEvent.setup().click(within(form).getByRole('button', { name: 'Save settings' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('project admins only');
  });

  it.each(['runner', 'viewer'] as const)('is read-only for a %s', async (role) => {
    stub(() => jsonResponse(project()));
    renderPage(role);
    const form = await screen.findByRole('form', { name: 'Project settings' });
    expect(within(form).getByRole('note')).toHaveTextContent('Only admins of this project can change its settings.');
    expect(within(form).getByRole('checkbox', { name: 'Public results' })).toBeDisabled();
    const list = within(form).getByLabelText(/^Target allow list/);
    expect(list).toHaveAttribute('readonly');
    expect(list).toHaveValue('fortio.lab:8080\n10.20.0.0/16');
    expect(within(form).queryByRole('button', { name: 'Save settings' })).toBeNull();
    expect(requests('PATCH', '/api/v1/projects/default')).toHaveLength(0);
  });
});

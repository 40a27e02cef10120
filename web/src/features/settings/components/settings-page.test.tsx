import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse, problemResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { SettingsPage } from './settings-page';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const deployment: Schemas['LimitValues'] = { max_qps: 1000, max_connections: 50, max_duration: '10m0s', max_agents: 4, max_concurrent_runs: 20 };

const project = (over: Partial<Schemas['Project']> = {}): Schemas['Project'] => ({
  id: '0190b1c2-0000-7000-8000-0000000000p1',
  slug: 'default',
  name: 'Default',
  description: '',
  public_results: false,
  target_allow_list: ['fortio.lab:8080', '10.20.0.0/16'],
  target_allow_granted: ['10.20.0.0/16'],
  limits: { ...deployment, overridden: [], deployment },
  retention: {},
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  ...over,
});

const requests = (method: string, path: string) =>
  fetchMock.mock.calls.map(([r]) => r).filter((r) => r.method === method && new URL(r.url).pathname === path);

const notFound = () =>
  problemResponse({ type: 'https://barrage.dev/problems/not-found', title: 'Not found', status: 404, detail: 'no remote write for this project' }, 404);

/**
 * stub answers GET of the project with it, of the organisation's policy, the
 * agent pools and the remote write (none) as a fresh install would, and
 * PATCH with patch(body).
 */
function stub(patch: (body: Schemas['ProjectUpdate']) => Response, initial = project()) {
  let current = initial;
  fetchMock.mockImplementation(async (req) => {
    const path = new URL(req.url).pathname;
    if (req.method === 'PATCH') {
      const res = patch((await req.clone().json()) as Schemas['ProjectUpdate']);
      if (res.ok) current = (await res.clone().json()) as Schemas['Project'];
      return res;
    }
    if (path === '/api/v1/org/target-policy') {
      return req.method === 'PUT' ? jsonResponse(await req.clone().json()) : jsonResponse({ target_allow_list: ['*', '127.0.0.0/8'] });
    }
    if (path === '/api/v1/projects/default/agent-pools') return jsonResponse({ pools: [] });
    if (path === '/api/v1/projects/default/remote-write') return notFound();
    return jsonResponse(current);
  });
}

function renderPage(role: Schemas['Role'] | undefined, orgAdmin = false) {
  renderRoutes([{ path: '/settings', element: <SettingsPage role={role} orgAdmin={orgAdmin} /> }], '/settings');
}

afterEach(() => fetchMock.mockReset());

describe('SettingsPage', () => {
  it('saves the allow list on its own, with PATCH', async () => {
    stub(({ limits: _limits, ...body }) => jsonResponse(project({ ...body, updated_at: '2026-01-02T00:00:00Z' })));
    renderPage('admin');
    const form = await screen.findByRole('form', { name: 'Project allow list' });
    expect(requests('GET', '/api/v1/projects/default')).toHaveLength(1);
    const list = within(form).getByLabelText(/^Target allow list/);
    expect(list).toHaveValue('fortio.lab:8080\n10.20.0.0/16');
    expect(list.closest('label')).toHaveTextContent('link-local and cloud metadata addresses are always refused');
    expect(within(form).getByTestId('allow-granted')).toHaveTextContent("Granted by an org admin beyond the organisation's policy");
    expect(within(form).getByTestId('allow-granted')).toHaveTextContent('10.20.0.0/16');

    const user = userEvent.setup();
    await user.clear(list);
    await user.paste('fortio.lab:8080\n10.20.0.0/16\n\n  192.168.1.0/24:9000  \n');
    await user.click(within(form).getByRole('button', { name: 'Save allow list' }));
    expect(await within(form).findByRole('status')).toHaveTextContent('Saved.');
    expect(await requests('PATCH', '/api/v1/projects/default')[0]!.json()).toEqual({
      target_allow_list: ['fortio.lab:8080', '10.20.0.0/16', '192.168.1.0/24:9000'],
    });
    expect(list).toHaveValue('fortio.lab:8080\n10.20.0.0/16\n192.168.1.0/24:9000');
  });

  it('saves the public results on their own, with PATCH', async () => {
    stub(({ limits: _limits, ...body }) => jsonResponse(project({ ...body, updated_at: '2026-01-02T00:00:00Z' })));
    renderPage('admin');
    const user = userEvent.setup();
    const pub = await screen.findByRole('form', { name: 'Public results' });
    expect(screen.getByTestId('index-url')).toHaveTextContent(`${location.origin}/fortio/data/index.tsv?project=default`);
    const toggle = within(pub).getByRole('checkbox', { name: 'Public results' });
    expect(toggle).toHaveAccessibleDescription(/Anyone may read this project's completed results at \/fortio\/data\/index\.tsv/);
    await user.click(toggle);
    await user.click(within(pub).getByRole('button', { name: 'Save public results' }));
    await waitFor(() => expect(requests('PATCH', '/api/v1/projects/default')).toHaveLength(1));
    expect(await requests('PATCH', '/api/v1/projects/default')[0]!.json()).toEqual({ public_results: true });
    expect(await screen.findByRole('link', { name: `${location.origin}/fortio/data/index.tsv?project=default` })).toBeInTheDocument();
  });

  it('shows the entry beyond the organisation policy next to the allow list, naming its line', async () => {
    stub(() =>
      problemResponse(
        {
          type: 'https://barrage.dev/problems/forbidden',
          title: 'Forbidden',
          status: 403,
          detail: "the target allow-list goes beyond the organisation's target policy; only an org admin can add these entries",
          errors: [{ field: 'target_allow_list[2]', message: '"192.168.7.7" is outside the organisation\'s target policy; ask an org admin to add it' }],
        },
        403,
      ),
    );
    renderPage('admin');
    const form = await screen.findByRole('form', { name: 'Project allow list' });
    const list = within(form).getByLabelText(/^Target allow list/);
    const user = userEvent.setup();
    await user.clear(list);
    await user.paste('fortio.lab:8080\n\n10.20.0.0/16\n192.168.7.7');
    await user.click(within(form).getByRole('button', { name: 'Save allow list' }));

    await waitFor(() => expect(list).toHaveAttribute('aria-invalid', 'true'));
    expect(list).toHaveAccessibleDescription(
      'line 4 (192.168.7.7): "192.168.7.7" is outside the organisation\'s target policy; ask an org admin to add it',
    );
    expect(within(form).queryByRole('alert')).toBeNull();
  });

  it('shows the problem of a refused save', async () => {
    stub(() => problemResponse({ type: 'https://barrage.dev/problems/forbidden', title: 'Forbidden', status: 403, detail: 'project admins only' }, 403));
    renderPage('admin');
    const form = await screen.findByRole('form', { name: 'Project allow list' });
    await userEvent.setup().click(within(form).getByRole('button', { name: 'Save allow list' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('project admins only');
  });

  it('lets an org admin edit the organisation policy, a project admin only read it', async () => {
    stub(() => jsonResponse(project()));
    renderPage('admin', true);
    const org = await screen.findByRole('form', { name: 'Organisation target policy' });
    const entries = within(org).getByLabelText('Organisation policy entries');
    expect(entries).toHaveValue('*\n127.0.0.0/8');
    const user = userEvent.setup();
    await user.type(entries, '\n10.99.0.0/16');
    await user.click(within(org).getByRole('button', { name: 'Save organisation policy' }));
    expect(await within(org).findByRole('status')).toHaveTextContent('Saved.');
    expect(await requests('PUT', '/api/v1/org/target-policy')[0]!.json()).toEqual({ target_allow_list: ['*', '127.0.0.0/8', '10.99.0.0/16'] });
    expect(within(screen.getByRole('form', { name: 'Agent pools' })).getByLabelText('Pools')).toHaveValue('');
  });

  it('shows the organisation policy read-only to a project admin', async () => {
    stub(() => jsonResponse(project()));
    renderPage('admin');
    const org = await screen.findByRole('form', { name: 'Organisation target policy' });
    expect(within(org).getByLabelText('Organisation policy entries')).toHaveAttribute('readonly');
    expect(within(org).getByLabelText('Organisation policy entries')).toHaveAccessibleDescription(/Only org admins can change it\./);
    expect(within(org).queryByRole('button')).toBeNull();
    expect(await screen.findByTestId('agent-pools')).toHaveTextContent('Every agent (no restriction).');
    expect(await screen.findByTestId('remote-write-stored')).toHaveTextContent('Not configured');
  });

  it.each(['runner', 'viewer'] as const)('is read-only for a %s', async (role) => {
    stub(() => jsonResponse(project()));
    renderPage(role);
    const form = await screen.findByRole('form', { name: 'Project allow list' });
    await screen.findByTestId('agent-pools');
    expect(screen.getAllByRole('note').map((n) => n.textContent)).toEqual([
      'Only admins of this project can change its settings.',
      "Only org admins and project admins can see the organisation's target policy.",
      'Only admins of this project can see and change its remote-write endpoint.',
      'Only org admins can change which pools a project may use.',
    ]);
    expect(within(screen.getByRole('form', { name: 'Public results' })).getByRole('checkbox', { name: 'Public results' })).toBeDisabled();
    const list = within(form).getByLabelText(/^Target allow list/);
    expect(list).toHaveAttribute('readonly');
    expect(list).toHaveValue('fortio.lab:8080\n10.20.0.0/16');
    expect(screen.getByTestId('agent-pools')).toHaveTextContent('Every agent (no restriction).');
    expect(screen.queryAllByRole('button', { name: /^Save/ })).toEqual([]);
    // It asks only what the API shows a viewer or runner.
    expect(requests('GET', '/api/v1/org/target-policy')).toHaveLength(0);
    expect(requests('GET', '/api/v1/projects/default/remote-write')).toHaveLength(0);
    expect(requests('PATCH', '/api/v1/projects/default')).toHaveLength(0);
  });

  describe('Limits', () => {
    /** limitsOf is what the API answers for a project that sets own. */
    const limitsOf = (own: Partial<Schemas['LimitValues']>): Schemas['Project']['limits'] => {
      const set = Object.fromEntries(Object.entries(own).filter(([, v]) => v !== undefined)) as Partial<Schemas['LimitValues']>;
      return { ...deployment, ...set, overridden: Object.keys(set) as (keyof Schemas['LimitValues'])[], deployment };
    };

    it('lets an admin set and clear the project limits with PATCH', async () => {
      stub((body) => jsonResponse(project({ limits: limitsOf({ ...body.limits, max_duration: body.limits?.max_duration === undefined ? undefined : '30m0s' }) })));
      renderPage('admin');
      const form = await screen.findByRole('form', { name: 'Project limits' });
      const qps = within(form).getByLabelText(/^Max QPS/);
      const duration = within(form).getByLabelText(/^Max duration/);
      const concurrent = within(form).getByLabelText(/^Max concurrent runs/);
      expect(qps).toHaveValue('');
      expect(qps).toHaveAttribute('placeholder', '1000 (server limit)');
      expect(concurrent.closest('label')).toHaveTextContent('server limit 20');

      const user = userEvent.setup();
      await user.type(qps, '250');
      await user.type(duration, '30m');
      await user.type(concurrent, '2');
      await user.click(within(form).getByRole('button', { name: 'Save limits' }));
      expect(await within(form).findByRole('status')).toHaveTextContent('Saved.');
      const [patch] = requests('PATCH', '/api/v1/projects/default');
      expect(await patch!.json()).toEqual({ limits: { max_qps: 250, max_duration: '30m', max_concurrent_runs: 2 } });
      // The form shows what the API stored, as it stored it.
      expect(duration).toHaveValue('30m0s');
      expect(qps).toHaveValue('250');

      await user.clear(qps);
      await user.clear(duration);
      await user.clear(concurrent);
      await user.click(within(form).getByRole('button', { name: 'Save limits' }));
      await waitFor(() => expect(requests('PATCH', '/api/v1/projects/default')).toHaveLength(2));
      expect(await requests('PATCH', '/api/v1/projects/default')[1]!.json()).toEqual({ limits: {} });
    });

    it('shows the API refusal next to the limit at fault', async () => {
      stub(() =>
        problemResponse(
          {
            type: 'https://barrage.dev/problems/validation',
            title: 'Invalid request',
            status: 422,
            detail: "the project's limits are invalid",
            errors: [{ field: 'limits.max_agents', message: "must be from 1 to 4, this server's limit" }],
          },
          422,
        ),
      );
      renderPage('admin');
      const form = await screen.findByRole('form', { name: 'Project limits' });
      const agents = within(form).getByLabelText(/^Max agents/);
      const user = userEvent.setup();
      await user.type(agents, '9');
      await user.click(within(form).getByRole('button', { name: 'Save limits' }));
      await waitFor(() => expect(agents).toHaveAttribute('aria-invalid', 'true'));
      expect(agents).toHaveAccessibleDescription("must be from 1 to 4, this server's limit");
      expect(within(form).queryByRole('alert')).toBeNull();
    });

    it('refuses a limit it cannot read without calling the API', async () => {
      stub(() => jsonResponse(project()));
      renderPage('admin');
      const form = await screen.findByRole('form', { name: 'Project limits' });
      const connections = within(form).getByLabelText(/^Max connections/);
      const user = userEvent.setup();
      await user.type(connections, 'many');
      await user.click(within(form).getByRole('button', { name: 'Save limits' }));
      expect(connections).toHaveAccessibleDescription('must be a whole number');
      expect(requests('PATCH', '/api/v1/projects/default')).toHaveLength(0);
    });

    it.each(['runner', 'viewer'] as const)('shows the limits in force read-only to a %s', async (role) => {
      stub(() => jsonResponse(project()), project({ limits: limitsOf({ max_qps: 100, max_concurrent_runs: 3 }) }));
      renderPage(role);
      const form = await screen.findByRole('form', { name: 'Project limits' });
      expect(within(form).getByTestId('limit-max_qps')).toHaveTextContent('100 (this project)');
      expect(within(form).getByTestId('limit-max_concurrent_runs')).toHaveTextContent('3 (this project)');
      expect(within(form).getByTestId('limit-max_duration')).toHaveTextContent('10m0s (server limit)');
      expect(within(form).queryByRole('textbox')).toBeNull();
      expect(within(form).queryByRole('button', { name: 'Save limits' })).toBeNull();
    });
  });
});

import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { Layout } from './layout';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const me = (over: Partial<Schemas['Me']> = {}): Schemas['Me'] => ({
  user: { id: '0190b1c2-0000-7000-8000-00000000000a', email: 'ann@barrage.test', name: 'Ann', is_admin: false },
  projects: [
    {
      role: 'viewer',
      project: {
        id: '0190b1c2-0000-7000-8000-0000000000p1', slug: 'default', name: 'Default', description: '', public_results: false,
        target_allow_list: [], target_allow_granted: [], retention: {}, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
        limits: {
          max_qps: 100000, max_connections: 1000, max_duration: '1h0m0s', max_agents: 100, max_concurrent_runs: 1000, overridden: [],
          deployment: { max_qps: 100000, max_connections: 1000, max_duration: '1h0m0s', max_agents: 100, max_concurrent_runs: 1000 },
        },
      },
    },
  ],
  ...over,
});

const posts = () => fetchMock.mock.calls.map(([r]) => r).filter((r) => r.method === 'POST').map((r) => new URL(r.url).pathname);

function renderLayout() {
  return renderRoutes(
    [
      { path: '/', element: <Layout />, children: [{ path: 'runs', element: <p>runs page</p> }] },
      { path: '/sign-in', element: <p>sign-in page</p> },
    ],
    '/runs',
  );
}

afterEach(() => fetchMock.mockReset());

describe('Layout', () => {
  it('signs out everywhere with POST /auth/logout-all and goes to sign-in', async () => {
    fetchMock.mockImplementation(async (req) =>
      req.method === 'POST' ? new Response(null, { status: 204 }) : jsonResponse(me()),
    );
    const router = renderLayout();
    const button = await screen.findByRole('button', { name: 'Sign out everywhere' });
    expect(screen.getByRole('link', { name: 'Members' })).toBeInTheDocument();
    await userEvent.setup().click(button);
    await waitFor(() => expect(router.state.location.pathname).toBe('/sign-in'));
    expect(posts()).toEqual(['/api/v1/auth/logout-all']);
  });

  it('offers no sign-out everywhere to a token', async () => {
    fetchMock.mockImplementation(async () => jsonResponse(me({ token: { id: '0190b1c2-0000-7000-8000-0000000000t1' } })));
    renderLayout();
    expect(await screen.findByText('runs page')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign out everywhere' })).toBeNull();
  });

  it('shows a read-only server without sign-in, sign-out or pages that change things', async () => {
    fetchMock.mockImplementation(async (req) =>
      new URL(req.url).pathname === '/api/v1/auth/methods'
        ? jsonResponse({ password: false, oidc: false, read_only: true })
        : jsonResponse(me({ user: { id: '00000000-0000-0000-0000-000000000000', email: '', name: 'anonymous', is_admin: false } })),
    );
    const router = renderLayout();
    expect(await screen.findByText('runs page')).toBeInTheDocument();
    expect(screen.getByRole('note')).toHaveTextContent('Read-only');
    expect(screen.getByRole('link', { name: 'Runs' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Compare' })).toBeInTheDocument();
    for (const name of ['New run', 'Sync', 'Agents', 'Echo profiles', 'Members', 'Settings']) {
      expect(screen.queryByRole('link', { name })).toBeNull();
    }
    expect(screen.queryByRole('button', { name: 'Sign out' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Sign out everywhere' })).toBeNull();
    expect(router.state.location.pathname).toBe('/runs');
  });

  it('keeps the sign-in and the writing pages on a normal server', async () => {
    fetchMock.mockImplementation(async (req) =>
      new URL(req.url).pathname === '/api/v1/auth/methods'
        ? jsonResponse({ password: true, oidc: false, read_only: false })
        : jsonResponse(me()),
    );
    renderLayout();
    expect(await screen.findByRole('button', { name: 'Sign out' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'New run' })).toBeInTheDocument();
    expect(screen.queryByRole('note')).toBeNull();
  });

  it('shows Users to an org admin', async () => {
    fetchMock.mockImplementation(async () => jsonResponse(me({ user: { ...me().user, is_admin: true } })));
    renderLayout();
    expect(await screen.findByRole('link', { name: 'Users' })).toHaveAttribute('href', '/users');
  });

  it('hides Users from an org admin’s project token', async () => {
    const token = { id: '0190b1c2-0000-7000-8000-0000000000t1', project_id: '0190b1c2-0000-7000-8000-0000000000p1', role: 'admin' as const };
    fetchMock.mockImplementation(async () => jsonResponse(me({ user: { ...me().user, is_admin: true }, token })));
    renderLayout();
    expect(await screen.findByText('runs page')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Users' })).toBeNull();
  });

  it('hides Users from members', async () => {
    fetchMock.mockImplementation(async () => jsonResponse(me()));
    renderLayout();
    expect(await screen.findByText('runs page')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Audit log' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Users' })).toBeNull();
  });
});

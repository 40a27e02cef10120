import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { jsonResponse, problemResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { SignInForm } from './sign-in-form';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

function renderForm(ssoFailed = false) {
  const onSignedIn = vi.fn();
  renderRoutes([{ path: '/sign-in', element: <SignInForm onSignedIn={onSignedIn} ssoFailed={ssoFailed} /> }], '/sign-in');
  return onSignedIn;
}

/** stub answers /auth/methods with oidc and /auth/login with login. */
function stub(oidc: boolean, login: () => Response = () => jsonResponse({})) {
  fetchMock.mockImplementation(async (req) =>
    new URL(req.url).pathname === '/api/v1/auth/methods' ? jsonResponse({ password: true, oidc }) : login(),
  );
}

afterEach(() => fetchMock.mockReset());

describe('SignInForm', () => {
  it('offers single sign-on when the server has it', async () => {
    stub(true);
    renderForm();
    const link = await screen.findByRole('link', { name: 'Sign in with single sign-on' });
    expect(link).toHaveAttribute('href', '/api/v1/auth/oidc/login');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('offers no single sign-on without it, and says when it failed', async () => {
    stub(false);
    renderForm(true);
    expect(await screen.findByRole('alert')).toHaveTextContent('Single sign-on failed.');
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(screen.queryByRole('link', { name: 'Sign in with single sign-on' })).toBeNull();
  });

  it('shows the lockout answer of a locked email', async () => {
    stub(false, () =>
      problemResponse(
        {
          type: 'https://barrage.dev/problems/rate-limited',
          title: 'Too many requests',
          status: 429,
          detail: 'too many failed sign-ins with this email; try again later',
        },
        429,
      ),
    );
    const onSignedIn = renderForm();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ann@barrage.test');
    await user.type(screen.getByLabelText('Password'), 'whatever it is');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('too many failed sign-ins with this email; try again later');
    expect(onSignedIn).not.toHaveBeenCalled();
  });
});

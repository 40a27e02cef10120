import { useState, type FormEvent } from 'react';
import { ApiError } from '@/lib/api-client';
import { oidcLoginPath, useAuthMethods } from '../api/get-auth-methods';
import { useLogin } from '../api/login';

/**
 * SignInForm signs in with email and password and calls onSignedIn; it also
 * offers single sign-on when the server has it. ssoFailed says the last
 * single sign-on came back refused.
 */
export function SignInForm({ onSignedIn, ssoFailed = false }: { onSignedIn: () => void; ssoFailed?: boolean }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useLogin();
  const methods = useAuthMethods();
  const fields = login.error instanceof ApiError ? login.error.fieldErrors() : {};

  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate({ email, password }, { onSuccess: onSignedIn });
  };

  return (
    <form className="card stack" onSubmit={submit} style={{ width: 'min(360px, 100%)' }} noValidate>
      <h1>Sign in to Barrage</h1>
      {ssoFailed && !login.error && (
        <div className="field-error" role="alert">
          Single sign-on failed. Try again, or ask an admin whether your email may sign in here.
        </div>
      )}
      <label className="field">
        Email
        <input type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required
          aria-invalid={fields.email ? true : undefined} />
        {fields.email && <span className="field-error">{fields.email}</span>}
      </label>
      <label className="field">
        Password
        <input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)}
          required aria-invalid={fields.password ? true : undefined} />
        {fields.password && <span className="field-error">{fields.password}</span>}
      </label>
      {login.error && Object.keys(fields).length === 0 && (
        <div className="field-error" role="alert">
          {login.error instanceof ApiError ? (login.error.problem.detail ?? login.error.problem.title) : 'Cannot reach the API'}
        </div>
      )}
      <button className="primary" type="submit" disabled={login.isPending || !email || !password}>
        {login.isPending ? 'Signing in…' : 'Sign in'}
      </button>
      {methods.data?.oidc && (
        <a className="button" href={oidcLoginPath}>
          Sign in with single sign-on
        </a>
      )}
      <p className="muted" style={{ margin: 0, fontSize: '0.85rem' }}>
        <code>make run</code> prints the admin email and password when it first starts.
      </p>
    </form>
  );
}

import { useState, type FormEvent } from 'react';
import { ApiError } from '@/lib/api-client';
import { useLogin } from '../api/login';

/** SignInForm signs in with email and password and calls onSignedIn. */
export function SignInForm({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useLogin();
  const fields = login.error instanceof ApiError ? login.error.fieldErrors() : {};

  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate({ email, password }, { onSuccess: onSignedIn });
  };

  return (
    <form className="card stack" onSubmit={submit} style={{ width: 'min(360px, 100%)' }} noValidate>
      <h1>Sign in to Barrage</h1>
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
      <p className="muted" style={{ margin: 0, fontSize: '0.85rem' }}>
        <code>make run</code> prints the admin email and password when it first starts.
      </p>
    </form>
  );
}

import { useId, useState } from 'react';

/**
 * ShownPassword shows a password the one time the API gives it (a new user's
 * generated one, a reset), in a read-only field with a copy button. The
 * owner forgets it when the admin is done.
 */
export function ShownPassword({ email, password }: { email: string; password: string }) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const id = useId();
  const copyPassword = async () => {
    try {
      await navigator.clipboard.writeText(password);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  };
  return (
    <div className="stack shown-password">
      <p role="note">
        Copy it now and give it to {email}: it is shown only once. They can change it after signing in.
      </p>
      <label className="field" htmlFor={`${id}-password`}>
        New password
        <input id={`${id}-password`} className="mono" readOnly value={password} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <div className="row">
        <button type="button" className="primary" onClick={() => void copyPassword()} data-autofocus>
          Copy password
        </button>
        <span role="status" className="muted">
          {copy === 'copied' ? 'Copied to the clipboard' : copy === 'failed' ? 'Copy failed: select the field and copy it' : ''}
        </span>
      </div>
    </div>
  );
}

import { useId, useState } from 'react';
import type { Schemas } from '@/lib/api-client';

/**
 * NewTokenSecret shows a token's secret the one time the API gives it, with
 * a copy button; dismissing it forgets the secret.
 */
export function NewTokenSecret({ token, onDone }: { token: Schemas['TokenCreated']; onDone: () => void }) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const id = useId();
  const copySecret = async () => {
    try {
      await navigator.clipboard.writeText(token.secret);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  };
  return (
    <section className="card stack" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} style={{ margin: 0, fontSize: 16 }}>
        Token {token.name} created
      </h2>
      <p style={{ margin: 0 }} role="note">
        Copy it now: it is shown only once. Send it as <code>Authorization: Bearer …</code>.
      </p>
      <label className="field" htmlFor={`${id}-secret`}>
        Token secret
        <input id={`${id}-secret`} className="mono" readOnly value={token.secret} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <div className="actions">
        <button type="button" className="primary" onClick={() => void copySecret()}>
          Copy token
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
        <span role="status" className="muted">
          {copy === 'copied' ? 'Copied to the clipboard' : copy === 'failed' ? 'Copy failed: select the field and copy it' : ''}
        </span>
      </div>
    </section>
  );
}

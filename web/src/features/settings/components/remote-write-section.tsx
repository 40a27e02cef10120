import { useId, useState, type FormEvent } from 'react';
import { ErrorState, Loading } from '@/components/ui/states';
import { ApiError, type Schemas } from '@/lib/api-client';
import { formatTime } from '@/lib/format';
import { useDeleteRemoteWrite } from '../api/delete-remote-write';
import { useRemoteWrite } from '../api/get-remote-write';
import { usePutRemoteWrite } from '../api/put-remote-write';
import {
  authText, maxHeaders, remoteWriteDraftOf, remoteWriteErrorsOf, toRemoteWritePut,
  type AuthKind, type RemoteWriteDraft, type RemoteWriteErrors,
} from '../utils/remote-write-form';
import { Field } from './field';
import { generalError, problemText } from './problem';
import { SaveActions } from './save-actions';

const authKinds: { kind: AuthKind; label: string }[] = [
  { kind: 'none', label: 'None' },
  { kind: 'basic', label: 'Basic auth' },
  { kind: 'bearer', label: 'Bearer token' },
];

/**
 * RemoteWriteSection is the project's Prometheus remote-write endpoint.
 * The API shows and changes it for project admins only; its secrets are
 * write-only: the page says a token or a header value is set, never what.
 */
export function RemoteWriteSection({ slug, admin }: { slug: string; admin: boolean }) {
  const rw = useRemoteWrite(slug, admin);
  const id = useId();
  return (
    <section className="card stack" aria-labelledby={`${id}-h`} id="remote-write">
      <h2 id={`${id}-h`}>Remote write</h2>
      <p className="hint" style={{ margin: 0 }}>
        Each second, the figures of this project&apos;s running runs (requests, errors by code, qps, latency) go to a Prometheus
        remote-write endpoint, labelled with the run, test, project and name. The endpoint must be a target the allow list
        permits.
      </p>
      {!admin ? (
        <p className="muted" role="note" style={{ margin: 0 }}>
          Only admins of this project can see and change its remote-write endpoint.
        </p>
      ) : rw.isPending ? (
        <Loading />
      ) : rw.error ? (
        <ErrorState error={rw.error} retry={() => rw.refetch()} />
      ) : (
        <RemoteWriteEditor slug={slug} stored={rw.data} />
      )}
    </section>
  );
}

function StoredEndpoint({ rw }: { rw: Schemas['RemoteWrite'] | null }) {
  if (!rw) {
    return (
      <p className="muted" style={{ margin: 0 }} data-testid="remote-write-stored">
        Not configured: no run figures leave Barrage.
      </p>
    );
  }
  return (
    <dl className="limits-list" data-testid="remote-write-stored">
      <div>
        <dt>Endpoint</dt>
        <dd className="mono settings-url">{rw.url}</dd>
      </div>
      <div>
        <dt>Sending</dt>
        <dd>{rw.enabled ? 'enabled' : 'paused'}</dd>
      </div>
      <div>
        <dt>Authentication</dt>
        <dd>{authText(rw)}</dd>
      </div>
      <div>
        <dt>Headers</dt>
        <dd>{rw.header_names.length === 0 ? 'none' : rw.header_names.map((n) => `${n} (value set)`).join(', ')}</dd>
      </div>
      <div>
        <dt>Changed</dt>
        <dd>{formatTime(rw.updated_at)}</dd>
      </div>
    </dl>
  );
}

function RemoteWriteEditor({ slug, stored }: { slug: string; stored: Schemas['RemoteWrite'] | null }) {
  const [draft, setDraft] = useState<RemoteWriteDraft>(() => remoteWriteDraftOf(stored));
  const [local, setLocal] = useState<RemoteWriteErrors>({});
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const put = usePutRemoteWrite();
  const remove = useDeleteRemoteWrite();
  const id = useId();

  const api = put.error instanceof ApiError ? remoteWriteErrorsOf(put.error.problem.errors, draft.headers) : undefined;
  const errors: RemoteWriteErrors = { ...api?.fields, ...local };
  const general = generalError(put.error, Object.keys(api?.fields ?? {}).length > 0, api?.other ?? []);
  const set = (patch: Partial<RemoteWriteDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const setHeader = (i: number, patch: Partial<RemoteWriteDraft['headers'][number]>) =>
    setDraft((d) => ({ ...d, headers: d.headers.map((h, j) => (j === i ? { ...h, ...patch } : h)) }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    remove.reset();
    const read = toRemoteWritePut(draft, stored);
    if (!read.ok) {
      put.reset();
      setLocal(read.errors);
      return;
    }
    setLocal({});
    put.mutate(
      { slug, body: read.body },
      {
        onSuccess: (rw) => {
          setDraft(remoteWriteDraftOf(rw));
          setSaved(true);
        },
      },
    );
  };
  const drop = () =>
    remove.mutate(slug, {
      onSuccess: () => {
        put.reset();
        setConfirming(false);
        setSaved(false);
        setLocal({});
        setDraft(remoteWriteDraftOf(null));
      },
    });

  const secretHint = 'Sealed at rest and never shown again; each save replaces the whole configuration, so enter it again.';
  return (
    <>
      <StoredEndpoint rw={stored} />
      <form className="stack settings-form" onSubmit={submit} noValidate aria-label="Remote-write endpoint">
        <Field id={`${id}-url`} label="Endpoint URL" inputMode="url" spellCheck={false} value={draft.url} error={errors.url}
          placeholder="https://prometheus.example/api/v1/write" hint="An http or https URL, without credentials."
          onChange={(e) => set({ url: e.target.value })} />
        <label className="check">
          <input type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
          Send the figures (off keeps the configuration but pauses sending)
        </label>
        <fieldset className="stack">
          <legend>Authentication</legend>
          <div className="settings-radios">
            {authKinds.map(({ kind, label }) => (
              <label key={kind} className="check">
                <input type="radio" name={`${id}-auth`} value={kind} checked={draft.auth === kind} onChange={() => set({ auth: kind })} />
                {label}
              </label>
            ))}
          </div>
          {draft.auth === 'basic' && (
            <div className="limits-grid">
              <Field id={`${id}-user`} label="Username" autoComplete="off" value={draft.username} error={errors.username}
                onChange={(e) => set({ username: e.target.value })} />
              <Field id={`${id}-password`} label="Password" type="password" autoComplete="new-password" value={draft.password}
                error={errors.password} hint={`${secretHint} Blank sends none.`} onChange={(e) => set({ password: e.target.value })} />
            </div>
          )}
          {draft.auth === 'bearer' && (
            <Field id={`${id}-token`} label="Token" type="password" autoComplete="off" value={draft.token} error={errors.token}
              placeholder={stored?.auth === 'bearer' ? 'set: enter it again to save' : undefined} hint={secretHint}
              onChange={(e) => set({ token: e.target.value })} />
          )}
        </fieldset>
        <fieldset className="stack">
          <legend>Headers</legend>
          <p className="hint" style={{ margin: 0 }}>
            Sent with every request, a tenant id for example. Their values are secret: {secretHint.toLowerCase()}
          </p>
          {draft.headers.map((h, i) => (
            <div key={i} className="header-row">
              <Field id={`${id}-h${i}-name`} label={`Header ${i + 1} name`} spellCheck={false} value={h.name}
                error={errors.header?.[i]?.name} onChange={(e) => setHeader(i, { name: e.target.value, stored: false })} />
              <Field id={`${id}-h${i}-value`} label={`Header ${i + 1} value`} type="password" autoComplete="off" value={h.value}
                placeholder={h.stored ? 'set: enter it again to save' : undefined} error={errors.header?.[i]?.value}
                onChange={(e) => setHeader(i, { value: e.target.value })} />
              <button type="button" className="link" onClick={() => set({ headers: draft.headers.filter((_, j) => j !== i) })}>
                Remove header {i + 1}
              </button>
            </div>
          ))}
          {errors.headers && <span className="field-error">{errors.headers}</span>}
          <div>
            <button type="button" disabled={draft.headers.length >= maxHeaders}
              onClick={() => set({ headers: [...draft.headers, { name: '', value: '', stored: false }] })}>
              Add header
            </button>
          </div>
        </fieldset>
        <SaveActions general={general} editable pending={put.isPending} saved={saved} label="Save remote write" />
      </form>
      {stored && (
        <div className="actions">
          {confirming ? (
            <span className="confirm" role="group" aria-label="Confirm removal of the remote-write endpoint">
              Stop sending this project&apos;s runs to {stored.url}?{' '}
              <button type="button" className="danger" disabled={remove.isPending} onClick={drop}>
                {remove.isPending ? 'Removing…' : 'Remove'}
              </button>{' '}
              <button type="button" onClick={() => setConfirming(false)} autoFocus>
                Keep
              </button>
            </span>
          ) : (
            <button type="button" className="danger" onClick={() => { remove.reset(); setConfirming(true); }}>
              Remove remote write…
            </button>
          )}
        </div>
      )}
      {remove.error && (
        <div className="field-error" role="alert">
          {problemText(remove.error)}
        </div>
      )}
    </>
  );
}

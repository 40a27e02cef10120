import { useState } from 'react';
import { ErrorState, Loading } from '@/components/ui/states';
import type { Schemas } from '@/lib/api-client';
import { formatAgo, formatTime, formatUntil } from '@/lib/format';
import { useProject } from '@/lib/project';
import { can, type Role } from '@/lib/roles';
import { useNow } from '@/lib/use-now';
import { useTokens } from '../api/list-tokens';
import { useRevokeToken } from '../api/revoke-token';
import { tokenState } from '../utils/expiry';
import { CreateTokenForm, problemText } from './create-token-form';
import { NewTokenSecret } from './new-token-secret';

/**
 * TokensPage lists the current project's API tokens with their role, expiry
 * and last use; project admins create (the secret shown once) and revoke
 * them. The API answers others 403, so they see only a note.
 */
export function TokensPage({ role }: { role: Role | undefined }) {
  const slug = useProject();
  const admin = can(role, 'admin');
  const [created, setCreated] = useState<Schemas['TokenCreated']>();
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>API tokens</h1>
      <p className="muted" style={{ margin: 0 }}>
        Tokens let scripts and CI call the API as this project, with the role they were given.
      </p>
      {admin ? (
        <>
          {created && <NewTokenSecret token={created} onDone={() => setCreated(undefined)} />}
          <TokensTable slug={slug} />
          <CreateTokenForm slug={slug} onCreated={setCreated} />
        </>
      ) : (
        <p className="muted" role="note" style={{ margin: 0 }}>
          Only admins of this project can see and manage its tokens.
        </p>
      )}
    </div>
  );
}

function TokensTable({ slug }: { slug: string }) {
  const tokens = useTokens(slug);
  const revoke = useRevokeToken();
  const [confirming, setConfirming] = useState<string>();
  // The page's clock, never behind the data it shows (a token made a second ago).
  const now = Math.max(useNow(30_000), tokens.dataUpdatedAt);
  if (tokens.isPending) return <Loading />;
  if (tokens.error) return <ErrorState error={tokens.error} retry={() => tokens.refetch()} />;
  const items = tokens.data.pages.flatMap((p) => p.items);
  return (
    <>
      {revoke.error && (
        <div className="field-error" role="alert">
          {problemText(revoke.error)}
        </div>
      )}
      {items.length === 0 ? (
        <p className="state" style={{ margin: 0 }}>No tokens yet.</p>
      ) : (
        <div className="table-wrap">
          <table aria-label="API tokens">
            <thead>
              <tr>
                <th>Name</th>
                <th>Starts with</th>
                <th>Role</th>
                <th>Created</th>
                <th>Expires</th>
                <th>Last used</th>
                <th>State</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((t) => {
                const state = tokenState(t, now);
                return (
                  <tr key={t.id}>
                    <td>{t.name}</td>
                    <td className="mono">{t.hint}…</td>
                    <td>{t.role}</td>
                    <td>{formatTime(t.created_at)}</td>
                    <td title={t.expires_at ? formatTime(t.expires_at) : undefined}>{t.expires_at ? formatUntil(t.expires_at, now) : 'never'}</td>
                    <td title={t.last_used_at ? formatTime(t.last_used_at) : undefined}>
                      {t.last_used_at ? formatAgo(t.last_used_at, now) : 'never'}
                    </td>
                    <td>{state}</td>
                    <td>
                      {state !== 'revoked' &&
                        (confirming === t.id ? (
                          <span className="confirm" role="group" aria-label={`Confirm revoke of ${t.name}`}>
                            Revoke? It stops working at once.
                            <button type="button" className="danger" disabled={revoke.isPending}
                              onClick={() => revoke.mutate({ slug, id: t.id }, { onSuccess: () => setConfirming(undefined) })}>
                              {revoke.isPending ? 'Revoking…' : 'Revoke'}
                            </button>
                            <button type="button" onClick={() => setConfirming(undefined)} autoFocus>
                              Keep
                            </button>
                          </span>
                        ) : (
                          <button type="button" className="link" onClick={() => { revoke.reset(); setConfirming(t.id); }}
                            aria-label={`Revoke ${t.name}`}>
                            Revoke…
                          </button>
                        ))}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {tokens.hasNextPage && (
        <div className="actions">
          <button type="button" disabled={tokens.isFetchingNextPage} onClick={() => void tokens.fetchNextPage()}>
            {tokens.isFetchingNextPage ? 'Loading…' : 'More tokens'}
          </button>
        </div>
      )}
    </>
  );
}

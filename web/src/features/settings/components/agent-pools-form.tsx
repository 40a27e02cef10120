import { useId, useState, type FormEvent } from 'react';
import { ErrorState, Loading } from '@/components/ui/states';
import { ApiError } from '@/lib/api-client';
import { useAgentPools } from '../api/get-agent-pools';
import { usePutAgentPools } from '../api/put-agent-pools';
import { checkPools, parsePools, poolErrorsOf } from '../utils/agent-pools';
import { Field } from './field';
import { generalError } from './problem';
import { SaveActions } from './save-actions';

/**
 * AgentPoolsForm shows the agent pools the project's runs are restricted
 * to; org admins change them, everyone else reads them. An agent's pool is
 * bound in its credentials, never taken from what it reports.
 */
export function AgentPoolsForm({ slug, editable }: { slug: string; editable: boolean }) {
  const pools = useAgentPools(slug);
  const id = useId();
  return (
    <section className="card stack" aria-labelledby={`${id}-h`} id="agent-pools">
      <h2 id={`${id}-h`}>Agent pools</h2>
      <p className="hint" style={{ margin: 0 }}>
        Which agents may run this project&apos;s load. An agent&apos;s pool is bound in its credentials (
        <code>barrage-api agent-credentials create NAME -pool POOL</code>).
      </p>
      {pools.isPending ? (
        <Loading />
      ) : pools.error ? (
        <ErrorState error={pools.error} retry={() => pools.refetch()} />
      ) : editable ? (
        <PoolsEditor slug={slug} pools={pools.data.pools} />
      ) : (
        <>
          <p style={{ margin: 0 }} data-testid="agent-pools">
            {pools.data.pools.length === 0 ? (
              'Every agent (no restriction).'
            ) : (
              <>
                Only agents of the pools <span className="mono">{pools.data.pools.join(', ')}</span>.
              </>
            )}
          </p>
          <p className="muted" role="note" style={{ margin: 0 }}>
            Only org admins can change which pools a project may use.
          </p>
        </>
      )}
    </section>
  );
}

function PoolsEditor({ slug, pools }: { slug: string; pools: string[] }) {
  const [text, setText] = useState(pools.join(', '));
  const [sent, setSent] = useState<string[]>([]);
  const [local, setLocal] = useState<string[]>([]);
  const [saved, setSaved] = useState(false);
  const put = usePutAgentPools();
  const id = useId();

  const api = put.error instanceof ApiError ? poolErrorsOf(put.error.problem.errors, sent) : [];
  const messages = local.length > 0 ? local : api;
  const general = generalError(put.error, api.length > 0, []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    const list = parsePools(text);
    const wrong = checkPools(list);
    setLocal(wrong);
    if (wrong.length > 0) return;
    setSent(list);
    put.mutate(
      { slug, pools: list },
      {
        onSuccess: (stored) => {
          setText(stored.pools.join(', '));
          setSaved(true);
        },
      },
    );
  };

  return (
    <form className="stack settings-form" onSubmit={submit} noValidate aria-label="Agent pools">
      <Field id={`${id}-pools`} label="Pools" spellCheck={false} value={text} placeholder="every agent"
        error={messages.length > 0 ? messages.join('; ') : undefined}
        hint="Pool names separated by commas; blank lets the project's runs use every agent."
        onChange={(e) => setText(e.target.value)} />
      <SaveActions general={general} editable pending={put.isPending} saved={saved} label="Save agent pools" />
    </form>
  );
}

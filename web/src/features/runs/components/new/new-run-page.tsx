import { useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { ErrorState, Loading } from '@/components/ui/states';
import { useTest } from '../../api/get-test';
import { NewRunForm } from './new-run-form';
import { NewScenarioForm } from './new-scenario-form';

/**
 * NewRunPage is the New run form, prefilled from a stored test with
 * `?test=<id>`, or with `?kind=scenario` the form of a multi-step scenario
 * run; notice goes under the title (src/app/routes/new-run.tsx passes the
 * agents feature's notice when no agent is connected).
 */
export function NewRunPage({ notice }: { notice?: ReactNode }) {
  const [params, setParams] = useSearchParams();
  const testId = params.get('test') ?? '';
  // The choice shows at once; the URL follows it (a router navigation may come a render later).
  const [kind, setKind] = useState(params.get('kind') === 'scenario' ? 'scenario' : 'request');
  const scenario = !testId && kind === 'scenario';
  const test = useTest(testId);
  const choose = (k: 'request' | 'scenario') => {
    setKind(k);
    setParams(k === 'scenario' ? { kind: k } : {}, { replace: true });
  };
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>New run</h1>
      {notice}
      {!testId && (
        <div role="radiogroup" aria-label="What to run" className="kind-choice">
          <label className="check">
            <input type="radio" name="run-kind" checked={!scenario} onChange={() => choose('request')} /> One request, at a rate
          </label>
          <label className="check">
            <input type="radio" name="run-kind" checked={scenario} onChange={() => choose('scenario')} /> A scenario of steps
          </label>
        </div>
      )}
      {scenario ? (
        <NewScenarioForm />
      ) : testId && test.isPending ? (
        <Loading label="Loading the test…" />
      ) : testId && test.error ? (
        <ErrorState error={test.error} retry={() => test.refetch()} />
      ) : (
        // A new key per test, so switching tests refills the form.
        <NewRunForm key={testId} test={testId ? test.data : undefined} />
      )}
    </div>
  );
}

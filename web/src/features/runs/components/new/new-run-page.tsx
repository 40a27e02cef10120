import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { ErrorState, Loading } from '@/components/ui/states';
import { useTest } from '../../api/get-test';
import { NewRunForm } from './new-run-form';

/**
 * NewRunPage is the New run form, prefilled from a stored test with
 * `?test=<id>`; notice goes under the title (src/app/routes/new-run.tsx
 * passes the agents feature's notice when no agent is connected).
 */
export function NewRunPage({ notice }: { notice?: ReactNode }) {
  const [params] = useSearchParams();
  const testId = params.get('test') ?? '';
  const test = useTest(testId);
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>New run</h1>
      {notice}
      {testId && test.isPending ? (
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

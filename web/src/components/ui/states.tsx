import type { ReactNode } from 'react';
import { ApiError } from '@/lib/api-client';
import { isUnreachable } from '@/lib/unreachable';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state" role="status">
      <span className="spinner" aria-hidden /> {label}
    </div>
  );
}

/**
 * ErrorState shows a failed query: the problem's title and detail when the
 * API sent one, or that the API cannot be reached when no answer came.
 */
export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const down = isUnreachable(error);
  const title = down ? 'The API cannot be reached' : error instanceof ApiError ? error.problem.title : 'Something went wrong';
  const detail = down
    ? 'Nothing to show until it answers. Check that barrage-api is running and reachable from this browser, then retry.'
    : error instanceof ApiError
      ? error.problem.detail
      : error instanceof Error
        ? error.message
        : undefined;
  return (
    <div className="state error" role="alert" data-testid={down ? 'api-unreachable-state' : undefined}>
      <strong>{title}</strong>
      {detail && <div>{detail}</div>}
      {retry && (
        <div style={{ marginTop: 8 }}>
          <button onClick={retry}>{down ? 'Retry' : 'Try again'}</button>
        </div>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state">{children}</div>;
}

import type { ReactNode } from 'react';
import { ApiError } from '@/lib/api-client';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state" role="status">
      <span className="spinner" aria-hidden /> {label}
    </div>
  );
}

/** ErrorState shows a failed query: the problem's title and detail when the API sent one. */
export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const title = error instanceof ApiError ? error.problem.title : 'Something went wrong';
  const detail = error instanceof ApiError ? error.problem.detail : error instanceof Error ? error.message : undefined;
  return (
    <div className="state error" role="alert">
      <strong>{title}</strong>
      {detail && <div>{detail}</div>}
      {retry && (
        <div style={{ marginTop: 8 }}>
          <button onClick={retry}>Try again</button>
        </div>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state">{children}</div>;
}

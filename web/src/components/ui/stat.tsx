import type { ReactNode } from 'react';

/** Stat is one summary card: a label, a value and an optional note under it. */
export function Stat({ label, value, sub, testId }: { label: string; value: ReactNode; sub?: ReactNode; testId?: string }) {
  return (
    <div className="card stat">
      <div className="label">{label}</div>
      <div className="value" data-testid={testId}>
        {value}
      </div>
      {sub !== undefined && <div className="sub">{sub}</div>}
    </div>
  );
}

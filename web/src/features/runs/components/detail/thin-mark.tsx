import type { ReactNode } from 'react';

/**
 * ThinMark shows a figure; when note says its percentile rests on too few samples (thinPercentile), it adds a
 * "few samples" mark (compact: a dagger, explained in a list under the table) whose text, not colour, says so,
 * and whose title and screen-reader text explain why.
 */
export function ThinMark({ label, note, compact = false, children }: { label: string; note?: string; compact?: boolean; children: ReactNode }) {
  if (!note) return <>{children}</>;
  return (
    <span className="thin-figure" data-thin={label}>
      {children}{compact ? '' : ' '}
      <span className={compact ? 'thin-mark compact' : 'badge warn thin-mark'} title={note}>
        <span aria-hidden="true">{compact ? '†' : 'few samples'}</span>
        <span className="sr-only">{`(few samples: ${note})`}</span>
      </span>
    </span>
  );
}

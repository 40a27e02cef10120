import type { Schemas } from '@/lib/api-client';

export type RunStatus = Schemas['RunStatus'];
type Run = Schemas['Run'];

/** Every status, in the order a run moves through them. */
export const runStatuses: readonly RunStatus[] = ['queued', 'dispatching', 'running', 'stopping', 'completed', 'failed', 'canceled'];

/** A run in one of these statuses will not change any more. */
export function isTerminal(status: RunStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'canceled';
}

/** anyActive reports whether a run among runs may still change, so a view of them should refresh. */
export function anyActive(runs: readonly Pick<Run, 'status'>[]): boolean {
  return runs.some((r) => !isTerminal(r.status));
}

/** The badge class (styles.css) of a status. */
export function statusTone(status: RunStatus): 'ok' | 'bad' | 'warn' | 'info' | 'muted' {
  switch (status) {
    case 'completed':
      return 'ok';
    case 'failed':
      return 'bad';
    case 'stopping':
      return 'warn';
    case 'dispatching':
    case 'running':
      return 'info';
    default:
      return 'muted';
  }
}

/** The badge class of a verdict. */
export function verdictTone(verdict: NonNullable<Run['verdict']>): 'ok' | 'bad' | 'warn' {
  return verdict === 'pass' ? 'ok' : verdict === 'fail' ? 'bad' : 'warn';
}

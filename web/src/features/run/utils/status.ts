import type { Schemas } from '@/lib/api-client';

export type RunStatus = Schemas['RunStatus'];

const terminal: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'canceled']);
const stoppable: ReadonlySet<RunStatus> = new Set(['queued', 'dispatching', 'running']);

/** isTerminal reports whether a run in this status is over (the API's Status.Terminal). */
export function isTerminal(s: RunStatus | undefined): boolean {
  return s !== undefined && terminal.has(s);
}

/** canStop reports whether POST /stop makes sense; a stopping run is already on its way out. */
export function canStop(s: RunStatus | undefined): boolean {
  return s !== undefined && stoppable.has(s);
}

/** statusTone is the badge class of a run status. */
export function statusTone(s: RunStatus): 'ok' | 'bad' | 'warn' | 'info' | 'muted' {
  switch (s) {
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

/** verdictTone is the badge class of a verdict. */
export function verdictTone(v: NonNullable<Schemas['Run']['verdict']>): 'ok' | 'bad' | 'warn' {
  return v === 'pass' ? 'ok' : v === 'fail' ? 'bad' : 'warn';
}

/** isOkCode reports whether a result code is a success: HTTP 2xx, gRPC SERVING, TCP/UDP OK. */
export function isOkCode(code: string): boolean {
  return /^2\d\d$/.test(code) || code === 'SERVING' || code === 'OK';
}

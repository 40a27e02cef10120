import type { Schemas } from './api-client';

export type RunStatus = Schemas['RunStatus'];
export type Verdict = NonNullable<Schemas['Run']['verdict']>;
/** A badge class of styles.css. */
export type Tone = 'ok' | 'bad' | 'warn' | 'info' | 'muted';

/** Every status, in the order a run moves through them. */
export const runStatuses: readonly RunStatus[] = ['queued', 'dispatching', 'running', 'stopping', 'completed', 'failed', 'canceled'];

const known: ReadonlySet<string> = new Set(runStatuses);
const terminal: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'canceled']);
const stoppable: ReadonlySet<RunStatus> = new Set(['queued', 'dispatching', 'running']);

/** isRunStatus checks a string from outside the typed client (an SSE event) is a status. */
export function isRunStatus(s: string): s is RunStatus {
  return known.has(s);
}

/** isTerminal reports whether a run in this status is over and will not change (the API's Status.Terminal). */
export function isTerminal(s: RunStatus | undefined): boolean {
  return s !== undefined && terminal.has(s);
}

/** isActive reports whether a run in this status may still change, and so may still get a result. */
export function isActive(s: RunStatus): boolean {
  return !terminal.has(s);
}

/** anyActive reports whether a run among runs may still change, so a view of them should refresh. */
export function anyActive(runs: readonly Pick<Schemas['Run'], 'status'>[]): boolean {
  return runs.some((r) => isActive(r.status));
}

/** canStop reports whether POST /stop makes sense; a stopping run is already on its way out. */
export function canStop(s: RunStatus | undefined): boolean {
  return s !== undefined && stoppable.has(s);
}

const tones: Record<RunStatus, Tone> = {
  queued: 'muted',
  dispatching: 'info',
  running: 'info',
  stopping: 'warn',
  completed: 'ok',
  failed: 'bad',
  canceled: 'muted',
};

/** statusTone is the badge class of a run status. */
export function statusTone(s: RunStatus): Tone {
  return tones[s];
}

/** verdictTone is the badge class of a verdict. */
export function verdictTone(v: Verdict): 'ok' | 'bad' | 'warn' {
  return v === 'pass' ? 'ok' : v === 'fail' ? 'bad' : 'warn';
}

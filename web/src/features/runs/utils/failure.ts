import type { Schemas } from '@/lib/api-client';

export interface FailureAdvice {
  /** text is the next step, a sentence. */
  text: string;
  /** agents says the Agents page helps: link it. */
  agents: boolean;
}

/**
 * failureAdvice is the next step for a run that failed or was canceled, from what ended it: the rate-held check
 * (aborted_by abort_if_rate_not_held, docs/api.md), a lost agent, or anything else. Undefined for other runs.
 */
export function failureAdvice(run: Pick<Schemas['Run'], 'status' | 'error' | 'aborted_by'>): FailureAdvice | undefined {
  if (run.status === 'canceled') return { text: 'Start it again from New run when you are ready.', agents: false };
  if (run.status !== 'failed') return undefined;
  if (run.aborted_by === 'abort_if_rate_not_held') {
    return { text: 'The agents could not hold the rate: add connections or agents, or lower the rate, and run again.', agents: true };
  }
  if (/\b(agent|shard)s?\b.*\blost\b|\blost\b.*\b(agent|shard)s?\b|no agents?/i.test(run.error ?? '')) {
    return { text: 'An agent was lost or none was free: check that agents are online, then run again.', agents: true };
  }
  return { text: 'Check that the target answers from where the agents run and that agents are online, then run again.', agents: true };
}

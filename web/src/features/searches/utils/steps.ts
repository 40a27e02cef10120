import type { Schemas } from '@/lib/api-client';
import { formatRate } from '@/lib/format';

type Step = Schemas['SearchStep'];

/** StepPoint is one finished step on the step chart: its target rate and figures. */
export interface StepPoint {
  qps: number;
  p50: number;
  p99: number;
  /** errorRate is a share in [0, 1]. */
  errorRate: number;
  passed: boolean;
  step: number;
}

/**
 * stepPoints returns the finished steps ordered by rate, for a chart with qps on
 * x: running steps have no figures yet and steps that erred have none to show.
 */
export function stepPoints(steps: readonly Step[]): StepPoint[] {
  return steps
    .filter((s) => s.status === 'passed' || s.status === 'failed')
    .map((s) => ({
      qps: s.qps,
      p50: s.p50_us,
      p99: s.p99_us,
      errorRate: s.count > 0 ? s.errors / s.count : 0,
      passed: s.status === 'passed',
      step: s.step,
    }))
    .sort((a, b) => a.qps - b.qps || a.step - b.step);
}

/** searchAnswer is the one-line result of a search, or its progress while it runs. */
export function searchAnswer(s: Schemas['Search']): string {
  if (s.status === 'running') {
    const done = s.steps.filter((st) => st.status !== 'running').length;
    return `running: ${done} step${done === 1 ? '' : 's'} done`;
  }
  return s.message;
}

/**
 * searchNextStep is what to do after a search that found no answer inside
 * its range: not_met (even min_qps failed) asks for a lower minimum or a
 * look at why the lowest step failed; above_max (max_qps met it) asks for a
 * higher maximum. Undefined for a search that found its answer or has none yet.
 */
export function searchNextStep(s: Schemas['Search']): string | undefined {
  if (s.outcome === 'not_met') {
    return `The objective was not met even at ${formatRate(s.min_qps)} qps, the bottom of the range. Widen the range down (a lower minimum rate), or see the failed step's run for why, then search again.`;
  }
  if (s.outcome === 'above_max') {
    return `The objective was met even at ${formatRate(s.max_qps)} qps, the top of the range, so the capacity is higher. Widen the range up (a higher maximum rate) and search again.`;
  }
  return undefined;
}

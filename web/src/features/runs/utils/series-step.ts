import type { Schemas } from '@/lib/api-client';
import { isTerminal } from '@/lib/run-status';
import { maxChartPoints } from './downsample';

/**
 * seriesStep is the seconds per row the run page's time-series read, merged
 * (GET /runs/{run}/intervals) and per agent (/shards/intervals): 1 while the
 * run is live (the stream adds each second), else as many as keep an ended
 * run to about maxChartPoints rows, the most a chart draws: an hour is 300
 * windows of 12 s, not 3,600 seconds (72,000 rows over 20 agents). An ended
 * run's length is the longer of its start to end and its count over its rate
 * (the seconds its requests span, also for a run whose data came faster than
 * it was measured, as when it is imported or seeded).
 */
export function seriesStep(run: Pick<Schemas['Run'], 'status' | 'started_at' | 'ended_at' | 'summary'>): number {
  if (!isTerminal(run.status)) return 1;
  const wall = run.started_at && run.ended_at ? (Date.parse(run.ended_at) - Date.parse(run.started_at)) / 1000 : 0;
  const { count = 0, qps = 0 } = run.summary ?? {};
  const measured = qps > 0 ? count / qps : 0;
  const seconds = Math.max(Number.isFinite(wall) ? wall : 0, measured);
  return Math.max(1, Math.ceil(seconds / maxChartPoints));
}

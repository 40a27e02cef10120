import type { Schemas } from '@/lib/api-client';

/** A point of the timeline scatter: x the send time in seconds from the start, y the latency in µs. */
export interface TimelinePoint {
  x: number;
  y: number;
  code: string;
}

/** timelinePoints splits a run's sampled requests into successes and errors. */
export function timelinePoints(samples: readonly Schemas['TimelineSample'][]): { ok: TimelinePoint[]; errors: TimelinePoint[] } {
  const ok: TimelinePoint[] = [];
  const errors: TimelinePoint[] = [];
  for (const s of samples) {
    (s.ok ? ok : errors).push({ x: s.sent_us / 1e6, y: s.latency_us, code: s.code });
  }
  return { ok, errors };
}

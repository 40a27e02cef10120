import type { Schemas } from '@/lib/api-client';

/** LatencyKind is the latency a run's summary figures are of. */
export type LatencyKind = 'response' | 'service';

/**
 * summaryKind is the latency a run's summary figures (runs list, trend) are of: response time when the spec
 * paces sends at a rate (qps, a ramp or stages; PeakQPS in pkg/spec/spec.go), service time otherwise, as the
 * API picks them (summary in services/api/internal/ingest/finish.go). Imported runs record service time.
 */
export function summaryKind(spec: Pick<Schemas['RunSpec'], 'qps' | 'ramp' | 'stages'> | undefined, imported = false): LatencyKind {
  if (imported || !spec) return 'service';
  const peak = Math.max(spec.qps ?? 0, spec.ramp?.to ?? 0, ...(spec.stages ?? []).map((s) => s.qps ?? 0));
  return peak > 0 ? 'response' : 'service';
}

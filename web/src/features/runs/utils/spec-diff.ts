import type { Schemas } from '@/lib/api-client';
import { formatDuration } from '@/lib/format';

type RunSpec = Schemas['RunSpec'];

/** One spec field as the diff shows it. */
type Field = { key: string; label: string; value: (s: RunSpec) => string };

/** protocolOf names what a spec spoke: HTTP/1.1, HTTP/2, HTTP/3, gRPC, TCP or UDP, with TLS when it used it. */
export function protocolOf(s: RunSpec): string {
  const scheme = (/^([a-z0-9+.-]+):\/\//i.exec(s.url ?? '')?.[1] ?? '').toLowerCase();
  switch (scheme) {
    case 'http':
    case 'https': {
      const tls = scheme === 'https' ? ' over TLS' : '';
      if (s.h3) return 'HTTP/3';
      if (s.h2) return `HTTP/2${tls}`;
      return s.http10 ? `HTTP/1.0${tls}` : `HTTP/1.1${tls}`;
    }
    case 'h2c':
      return 'HTTP/2 cleartext';
    case 'grpc':
      return 'gRPC';
    case 'grpcs':
      return 'gRPC over TLS';
    case 'tcp':
      return 'TCP';
    case 'udp':
      return 'UDP';
  }
  return scheme || 'unknown';
}

/** rateOf is a spec's asked rate: "100 qps", or "as fast as it can" when it set none. */
export function rateOf(s: RunSpec): string {
  return s.qps ? `${s.qps} qps` : 'as fast as it can';
}

function lengthOf(s: RunSpec): string {
  if (s.until_stopped) return 'until stopped';
  if (s.count) return `${s.count} calls`;
  if (s.duration === undefined) return 'default';
  return typeof s.duration === 'number' ? formatDuration(s.duration * 1_000_000) : s.duration;
}

/** The fields compared, most telling first. */
export const specFields: Field[] = [
  { key: 'qps', label: 'qps', value: rateOf },
  { key: 'protocol', label: 'protocol', value: protocolOf },
  { key: 'connections', label: 'connections', value: (s) => (s.connections ? String(s.connections) : 'default') },
  { key: 'duration', label: 'duration', value: lengthOf },
  { key: 'url', label: 'url', value: (s) => s.url ?? '' },
  { key: 'method', label: 'method', value: (s) => s.method ?? 'GET' },
  { key: 'pacing', label: 'pacing', value: (s) => s.pacing ?? 'default' },
];

/** A field whose value differs between the runs: one value per run, undefined for a run without a spec. */
export type SpecDifference = { key: string; label: string; values: (string | undefined)[] };

/** specDiff lists the fields whose values differ between the runs that have a spec, in specFields order. */
export function specDiff(specs: (RunSpec | undefined)[]): SpecDifference[] {
  const out: SpecDifference[] = [];
  for (const f of specFields) {
    const values = specs.map((s) => (s ? f.value(s) : undefined));
    if (new Set(values.filter((v) => v !== undefined)).size > 1) out.push({ key: f.key, label: f.label, values });
  }
  return out;
}

/** specWarnings says why the figures may not compare: the runs asked for different rates or spoke different protocols. */
export function specWarnings(diff: SpecDifference[]): string[] {
  const out: string[] = [];
  if (diff.some((d) => d.key === 'qps')) {
    out.push('These runs asked for different rates: latency and qps differ with the load, not only with the code under test.');
  }
  if (diff.some((d) => d.key === 'protocol')) {
    out.push('These runs used different protocols: their latencies measure different things.');
  }
  return out;
}

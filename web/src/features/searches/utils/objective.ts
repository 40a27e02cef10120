/** A clause of a search objective as the builder holds it: one threshold. */
export interface Clause {
  metric: string;
  op: '<' | '<=';
  value: string;
}

/** metrics the builder offers, with the unit their limit is typed in. */
export const metrics = [
  { metric: 'p(50)', label: 'p50 latency', unit: 'ms' },
  { metric: 'p(90)', label: 'p90 latency', unit: 'ms' },
  { metric: 'p(99)', label: 'p99 latency', unit: 'ms' },
  { metric: 'p(99.9)', label: 'p99.9 latency', unit: 'ms' },
  { metric: 'max', label: 'max latency', unit: 'ms' },
  { metric: 'service.p(99)', label: 'p99 service time', unit: 'ms' },
  { metric: 'error_rate', label: 'error rate', unit: '%' },
] as const;

export const unitOf = (metric: string) => metrics.find((m) => m.metric === metric)?.unit ?? 'ms';

/**
 * buildObjective joins the clauses into the API's objective, e.g.
 * `p(99) < 50ms and error_rate < 1%`; errors holds, by clause index, why a
 * clause's limit is not a number above zero (error_rate may be 0).
 */
export function buildObjective(clauses: Clause[]): { objective: string; errors: Record<number, string> } {
  const errors: Record<number, string> = {};
  const parts: string[] = [];
  clauses.forEach((c, i) => {
    const v = c.value.trim();
    const n = Number(v);
    const unit = unitOf(c.metric);
    if (v === '' || !Number.isFinite(n) || n < 0 || (unit === 'ms' && n === 0)) {
      errors[i] = unit === 'ms' ? 'A number of milliseconds above 0' : 'A percentage, 0 or more';
      return;
    }
    if (unit === '%' && n > 100) {
      errors[i] = 'At most 100 %';
      return;
    }
    parts.push(`${c.metric} ${c.op} ${v}${unit}`);
  });
  return { objective: parts.join(' and '), errors };
}

/** SearchNumbers are the rate range and resolution as typed. */
export interface SearchNumbers {
  minQps: string;
  maxQps: string;
  resolutionPct: string;
}

/** checkNumbers names each field at fault: rates above 0, max at least min, resolution in (0, 100) %. */
export function checkNumbers(f: SearchNumbers): Partial<Record<keyof SearchNumbers, string>> {
  const errors: Partial<Record<keyof SearchNumbers, string>> = {};
  const min = Number(f.minQps);
  const max = Number(f.maxQps);
  const res = Number(f.resolutionPct);
  if (f.minQps.trim() === '' || !(min > 0)) errors.minQps = 'A rate above 0';
  if (f.maxQps.trim() === '' || !(max > 0)) errors.maxQps = 'A rate above 0';
  else if (min > 0 && max < min) errors.maxQps = 'At least the min qps';
  if (f.resolutionPct.trim() === '' || !(res > 0 && res < 100)) errors.resolutionPct = 'A percentage between 0 and 100';
  return errors;
}

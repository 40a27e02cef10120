import type { Schemas } from '@/lib/api-client';
import { runName } from '@/lib/run-name';

type ComparedRun = Schemas['ComparedRun'];

/**
 * shortId is the tail of a run id. Run ids are UUIDv7, whose head is a
 * timestamp shared by runs started together; the tail is random.
 */
export function shortId(id: string): string {
  return id.replace(/-/g, '').slice(-6);
}

/** legendNames names each run by its name, adding its short id when another run has the same name. */
export function legendNames(runs: Pick<ComparedRun, 'id' | 'name'>[]): string[] {
  const seen = new Map<string, number>();
  for (const r of runs) seen.set(r.name, (seen.get(r.name) ?? 0) + 1);
  return runs.map((r) => {
    if (!r.name) return runName(r);
    return (seen.get(r.name) ?? 0) > 1 ? `${r.name} (${shortId(r.id)})` : r.name;
  });
}

/** hasResult tells a run with figures from one listed only by its status. */
export function hasResult(r: ComparedRun): boolean {
  return r.count !== undefined;
}

/** runColor is the chart colour of the i-th run, cycling through --chart-1..6. */
export function runColor(i: number): string {
  return `var(--chart-${(i % 6) + 1})`;
}

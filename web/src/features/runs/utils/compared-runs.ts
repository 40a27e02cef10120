import type { Schemas } from '@/lib/api-client';
import { runName, runTail } from '@/lib/run-name';

type ComparedRun = Schemas['ComparedRun'];

/** shortId is the tail of a run id (runTail): UUIDv7 heads are shared by runs started together. */
export function shortId(id: string): string {
  return runTail(id);
}

/** displayName is a run's one name, as everywhere in the dashboard (runName). */
export function displayName(r: Pick<ComparedRun, 'id' | 'name' | 'created_at'>): string {
  return runName(r);
}

/** legendNames names each run by its display name, adding its id's tail when another run has the same name. */
export function legendNames(runs: Pick<ComparedRun, 'id' | 'name' | 'created_at'>[]): string[] {
  const names = runs.map(displayName);
  const seen = new Map<string, number>();
  for (const n of names) seen.set(n, (seen.get(n) ?? 0) + 1);
  return names.map((n, i) => ((seen.get(n) ?? 0) > 1 && !n.endsWith(shortId(runs[i]!.id)) ? `${n} (${shortId(runs[i]!.id)})` : n));
}

/** hasResult tells a run with figures from one listed only by its status. */
export function hasResult(r: ComparedRun): boolean {
  return r.count !== undefined;
}

/**
 * runColor is the colour of the i-th run: a fixed categorical palette of six
 * distinct hues (--chart-1..6 in styles.css, each readable on the page's
 * background), cycling after the sixth; names, not colours, tell runs apart.
 */
export function runColor(i: number): string {
  return `var(--chart-${(i % 6) + 1})`;
}

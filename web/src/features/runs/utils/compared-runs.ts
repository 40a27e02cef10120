import type { Schemas } from '@/lib/api-client';
import { formatTime } from '@/lib/format';

type ComparedRun = Schemas['ComparedRun'];

/**
 * shortId is the tail of a run id. Run ids are UUIDv7, whose head is a
 * timestamp shared by runs started together; the tail is random.
 */
export function shortId(id: string): string {
  return id.replace(/-/g, '').slice(-6);
}

/**
 * displayName is a run's one name: its name, else its creation date and its
 * id's tail (an unnamed run compared without a date shows the tail only).
 */
export function displayName(r: Pick<ComparedRun, 'id' | 'name' | 'created_at'>): string {
  if (r.name) return r.name;
  return r.created_at ? `${formatTime(r.created_at)} · ${shortId(r.id)}` : shortId(r.id);
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

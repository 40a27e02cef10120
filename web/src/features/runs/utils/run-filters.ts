import type { Schemas } from '@/lib/api-client';
import { runName } from '@/lib/run-name';
import { runStatuses, type RunStatus } from '@/lib/run-status';

/**
 * RunFilters is what the runs list is narrowed by. It lives in the URL's
 * search params, so a filtered view can be shared and survives a reload.
 */
export interface RunFilters {
  status: RunStatus[];
  /** A stored test's id, or '' for any. */
  test: string;
  /** `key=value` pairs; a run must carry all of them. */
  labels: string[];
  /** Free text matched against the loaded rows' name and target (not sent). */
  q: string;
}

export const emptyFilters: RunFilters = { status: [], test: '', labels: [], q: '' };

/** The API's label filter: a key of 1-63 of these characters, then `=`. */
const labelPattern = /^[A-Za-z0-9_.-]{1,63}=/;
export const maxLabelFilters = 16;

/** labelFilterError says what is wrong with a `key=value` label filter, or undefined when it is fine. */
export function labelFilterError(text: string): string | undefined {
  if (!text.includes('=')) return 'Use key=value';
  if (!labelPattern.test(text)) return 'The key is 1-63 of A-Z, a-z, 0-9, _ . -';
  if (text.length > 330) return 'Too long';
  return undefined;
}

/** filtersFromParams reads the filters from URL search params, dropping what the API would refuse. */
export function filtersFromParams(params: URLSearchParams): RunFilters {
  // Canonical order, so the same filter is the same query (and cache entry).
  const asked = new Set((params.get('status') ?? '').split(','));
  const status = runStatuses.filter((s) => asked.has(s));
  const labels: string[] = [];
  for (const l of params.getAll('label')) {
    if (labelFilterError(l) === undefined && !labels.includes(l) && labels.length < maxLabelFilters) labels.push(l);
  }
  return { status, test: params.get('test') ?? '', labels, q: params.get('q') ?? '' };
}

/** filtersToParams writes the filters as URL search params; empty filters leave no trace. */
export function filtersToParams(f: RunFilters): URLSearchParams {
  const p = new URLSearchParams();
  // Statuses in their canonical order, so the same filter is always the same URL.
  const status = runStatuses.filter((s) => f.status.includes(s));
  if (status.length > 0) p.set('status', status.join(','));
  if (f.test) p.set('test', f.test);
  for (const l of f.labels) p.append('label', l);
  if (f.q) p.set('q', f.q);
  return p;
}

/** hasFilters reports whether any filter is set. */
export function hasFilters(f: RunFilters): boolean {
  return f.status.length > 0 || f.test !== '' || f.labels.length > 0 || f.q !== '';
}

/**
 * matchesText is the client-side free-text filter: every word must appear in
 * the run's name or target, ignoring case.
 */
export function matchesText(run: Pick<Schemas['Run'], 'name' | 'target'>, q: string): boolean {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = `${run.name} ${run.target}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

/**
 * matchesPick is the compare picker's search: every word must appear in the
 * run's one name (runName), target, id or a `key=value` label, ignoring case.
 */
export function matchesPick(run: Pick<Schemas['Run'], 'id' | 'name' | 'target' | 'labels' | 'created_at'>, q: string): boolean {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const labels = Object.entries(run.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  const hay = [runName(run), run.target, run.id, ...labels].join(' ').toLowerCase();
  return words.every((w) => hay.includes(w));
}

/**
 * previousOfTest is the run of the same stored test as the first chosen one
 * that came just before it, among runs listed newest first, not chosen yet;
 * undefined when the first chosen run is not listed, ran no test, or is the
 * test's oldest listed run.
 */
export function previousOfTest<R extends Pick<Schemas['Run'], 'id' | 'test_id' | 'created_at'>>(runs: readonly R[], chosen: readonly string[]): R | undefined {
  const ref = runs.find((r) => r.id === chosen[0]);
  if (!ref?.test_id) return undefined;
  const at = Date.parse(ref.created_at);
  return runs.find((r) => r.test_id === ref.test_id && !chosen.includes(r.id) && Date.parse(r.created_at) < at);
}

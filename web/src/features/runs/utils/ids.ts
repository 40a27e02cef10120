/** The API compares at most this many runs at once. */
export const maxCompare = 20;

/**
 * parseIds reads the `ids` search parameter: comma-separated run ids, in
 * order, without blanks or repeats (case-insensitively), at most maxCompare.
 */
export function parseIds(raw: string | null | undefined): string[] {
  if (!raw) return [];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const part of raw.split(',')) {
    const id = part.trim();
    if (!id || seen.has(id.toLowerCase())) continue;
    seen.add(id.toLowerCase());
    out.push(id);
    if (out.length === maxCompare) break;
  }
  return out;
}

/**
 * compareHref is the shareable address of a comparison. Run ids are UUIDs,
 * so the commas stay readable rather than being encoded as %2C.
 */
export function compareHref(ids: string[]): string {
  if (ids.length === 0) return '/compare';
  return `/compare?ids=${ids.map(encodeURIComponent).join(',')}`;
}

/** withoutId is ids with one removed, order kept. */
export function withoutId(ids: string[], id: string): string[] {
  return ids.filter((x) => x !== id);
}

import type { Schemas } from '@/lib/api-client';

/** An allow list as typed: its entries, and the 1-based textarea line each came from. */
export type AllowList = { entries: string[]; lines: number[] };

/** parseAllowList reads one entry per non-blank line, trimmed. */
export function parseAllowList(text: string): AllowList {
  const entries: string[] = [];
  const lines: number[] = [];
  text.split('\n').forEach((l, i) => {
    const e = l.trim();
    if (!e) return;
    entries.push(e);
    lines.push(i + 1);
  });
  return { entries, lines };
}

/** Messages of a failed save of an allow list: one per wrong entry or for the list, and the rest. */
export type AllowListErrors = { list: string[]; other: string[] };

/**
 * allowListErrorsOf places the API's field errors on an allow list (a
 * project's or the organisation's): `target_allow_list[2]` is the third
 * entry sent, which names its textarea line and text.
 */
export function allowListErrorsOf(errs: Schemas['FieldError'][] | undefined, sent: AllowList): AllowListErrors {
  const out: AllowListErrors = { list: [], other: [] };
  for (const { field, message } of errs ?? []) {
    const m = /^target_allow_list(?:\[(\d+)\])?$/.exec(field);
    if (m) {
      const i = m[1] === undefined ? -1 : Number(m[1]);
      const entry = sent.entries[i];
      out.list.push(entry === undefined ? message : `line ${sent.lines[i]} (${entry}): ${message}`);
    } else {
      out.other.push(`${field}: ${message}`);
    }
  }
  return out;
}

/** indexUrl is where a project's completed results are listed for Fortio's report and other Barrage servers. */
export function indexUrl(origin: string, slug: string): string {
  return `${origin}/fortio/data/index.tsv?project=${encodeURIComponent(slug)}`;
}

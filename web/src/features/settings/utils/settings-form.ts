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

/** Messages of a failed save: the allow list's, one per wrong entry, and the rest. */
export type SettingsErrors = { allowList: string[]; publicResults?: string; other: string[] };

/**
 * settingsErrorsOf places the API's field errors: `target_allow_list[2]` is
 * the third entry sent, which names its textarea line and text.
 */
export function settingsErrorsOf(errs: Schemas['FieldError'][] | undefined, sent: AllowList): SettingsErrors {
  const out: SettingsErrors = { allowList: [], other: [] };
  for (const { field, message } of errs ?? []) {
    const m = /^target_allow_list(?:\[(\d+)\])?$/.exec(field);
    if (m) {
      const i = m[1] === undefined ? -1 : Number(m[1]);
      const entry = sent.entries[i];
      out.allowList.push(entry === undefined ? message : `line ${sent.lines[i]} (${entry}): ${message}`);
    } else if (field === 'public_results') {
      out.publicResults = message;
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

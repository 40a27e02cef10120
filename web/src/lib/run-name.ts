// One name per run, wherever the dashboard shows a run: its name, else the
// day and minute it was created and the tail of its id.

/** What runName needs of a run; an id alone will do. */
export interface NamedRun {
  id: string;
  name?: string | null;
  /** created_at dates a run whose id is not a UUIDv7 (imported runs); UUIDv7 ids carry their own time. */
  created_at?: string | null;
}

/**
 * runTail is the last 6 hex digits of a run id. Run ids are UUIDv7, whose
 * head is the creation time, shared by runs started together; the tail is
 * random.
 */
export function runTail(id: string): string {
  return id.replace(/-/g, '').slice(-6).toLowerCase();
}

/**
 * runCreated is when a run was created: the millisecond time a UUIDv7 id
 * carries in its first 48 bits, else created_at; undefined when neither
 * tells. The id comes first so that every place showing a run, with or
 * without its created_at, gives it the same name.
 */
export function runCreated(run: NamedRun): Date | undefined {
  const hex = run.id.replace(/-/g, '');
  if (/^[0-9a-f]{12}7[0-9a-f]{19}$/i.test(hex)) return new Date(parseInt(hex.slice(0, 12), 16));
  if (run.created_at) {
    const d = new Date(run.created_at);
    if (!Number.isNaN(d.getTime())) return d;
  }
  return undefined;
}

/** runDate shows a time as YYYY-MM-DD HH:MM in the viewer's time zone. */
function runDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * runName is how the dashboard names a run everywhere: its name when it has
 * one, else its creation date and the id's tail, e.g. "2026-11-27 06:14 ·
 * 4ea47b" (the tail alone when the date is unknown).
 */
export function runName(run: NamedRun): string {
  const name = run.name?.trim();
  if (name) return name;
  const created = runCreated(run);
  const tail = runTail(run.id);
  return created ? `${runDate(created)} · ${tail}` : tail;
}

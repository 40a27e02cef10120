// Display formatting for durations, rates, counts and times: the one place
// the dashboard turns numbers into text.

// The date formatter is made once, on first use: toLocaleString builds a new
// one on every call, which a page of charts and tables pays thousands of times.
let dateTime: Intl.DateTimeFormat | undefined;

/** formatDuration shows microseconds in µs, ms or s, as magnitude needs, with 3 significant digits. */
export function formatDuration(us: number | null | undefined): string {
  if (us === null || us === undefined || !Number.isFinite(us)) return '–';
  const abs = Math.abs(us);
  if (abs < 1_000) return `${sig(us)} µs`;
  if (abs < 1_000_000) return `${sig(us / 1_000)} ms`;
  if (abs < 60_000_000) return `${sig(us / 1_000_000)} s`;
  return formatSeconds(us / 1_000_000);
}

/** formatSeconds shows a length of time such as a run's duration: 45 s, 2m05s, 1h02m. */
export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  if (s < 60) return `${sig(s)} s`;
  const total = Math.round(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  if (h > 0) return `${h}h${pad2(m)}m`;
  return `${m}m${pad2(sec)}s`;
}

/** formatRate shows requests per second: 0.5, 12.3, 1,234, 12.3k, 1.23M. */
export function formatRate(qps: number | null | undefined): string {
  if (qps === null || qps === undefined || !Number.isFinite(qps)) return '–';
  if (qps >= 1_000_000) return `${sig(qps / 1_000_000)}M`;
  if (qps >= 10_000) return `${sig(qps / 1_000)}k`;
  if (qps >= 100) return grouped(Math.round(qps));
  return sig(qps);
}

/** formatCount shows an integer with thousands separators. */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return grouped(Math.round(n));
}

/** formatPercent shows a share in [0, 1] as a percentage. */
export function formatPercent(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return '–';
  const p = share * 100;
  if (p === 0) return '0%';
  if (p < 0.01) return '<0.01%';
  return `${sig(p)}%`;
}

/** formatBytes shows a byte count in B, KiB, MiB or GiB. */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${sig(v)} ${units[i]}`;
}

/** formatDelta shows b relative to a base a: +12.3%, −4.5%, or = when equal. */
export function formatDelta(base: number | null | undefined, v: number | null | undefined): string {
  if (base === null || base === undefined || v === null || v === undefined || !Number.isFinite(base) || !Number.isFinite(v)) return '–';
  if (base === v) return '=';
  if (base === 0) return v > 0 ? '+∞' : '−∞';
  const d = ((v - base) / Math.abs(base)) * 100;
  return `${d > 0 ? '+' : '−'}${sig(Math.abs(d))}%`;
}

/** formatTime shows an ISO timestamp in the viewer's locale, to the second. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '–';
  return dateFormat().format(d);
}

function dateFormat(): Intl.DateTimeFormat {
  return (dateTime ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }));
}

/**
 * warmDateFormat makes the date formatter ahead of its first use. Making it
 * loads the browser's locale data, tens of ms; src/boot.ts has that done
 * while the page waits for its code and reads, not in its first render.
 */
export function warmDateFormat(): void {
  dateFormat();
}

/** formatAgo shows how long before now an ISO timestamp is: 3 s ago, 5 min ago. */
export function formatAgo(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return '–';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return '–';
  const s = Math.max(0, (now - t) / 1000);
  if (s < 60) return `${Math.floor(s)} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** formatUntil shows how long after now an ISO timestamp is: in 3 s, in 5 min, in 2 h, in 1 d; a past one as formatAgo does. */
export function formatUntil(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return '–';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return '–';
  if (t < now) return formatAgo(iso, now);
  const s = (t - now) / 1000;
  if (s < 60) return `in ${Math.floor(s)} s`;
  if (s < 3600) return `in ${Math.floor(s / 60)} min`;
  if (s < 86400) return `in ${Math.floor(s / 3600)} h`;
  return `in ${Math.floor(s / 86400)} d`;
}

/** runSeconds is how long a run ran (or has run, if it has not ended). */
export function runSeconds(startedAt?: string, endedAt?: string, now: number = Date.now()): number | undefined {
  if (!startedAt) return undefined;
  const start = new Date(startedAt).getTime();
  const end = endedAt ? new Date(endedAt).getTime() : now;
  if (Number.isNaN(start) || Number.isNaN(end)) return undefined;
  return Math.max(0, (end - start) / 1000);
}

/**
 * grouped writes an integer with a comma every three digits, as en-US does:
 * 1,234,567. Written out rather than with Intl.NumberFormat, whose first use
 * loads the browser's locale data: tens of ms of a page's first screen.
 */
function grouped(n: number): string {
  const digits = String(Math.abs(n));
  if (!/^\d+$/.test(digits)) return String(n); // past 1e21, in exponent form
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/** sig rounds to 3 significant digits and drops trailing zeros. */
function sig(v: number): string {
  if (v === 0) return '0';
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(v))));
  return String(Number(v.toFixed(Math.min(digits, 6))));
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

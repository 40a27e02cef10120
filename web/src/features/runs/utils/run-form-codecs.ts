// How the New run form's text reads into spec values and back: one codec
// per kind of input, named in the field table (run-form-fields.ts). A codec's
// `to` refuses text that cannot be what the field needs ("abc" for qps, a
// header without a colon) through `fail`; range checks are the API's.

/** Fail reports a problem with the field being read; the first one per field is kept. */
export type Fail = (msg: string) => void;

/** Codec maps a field's input value to its spec value (undefined: left out) and back. */
export interface Codec<V extends string | boolean> {
  to(raw: V, fail: Fail): unknown;
  from(value: unknown): V;
}

export const numberPattern = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const integerPattern = /^[+-]?\d+$/;
// Go's time.ParseDuration syntax: one or more number+unit pairs.
const goDurationPattern = /^[+-]?((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;

/** str shows a stored value as text: '' when absent, 0 kept. */
export const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
/** nonZero shows a stored count as text: '' when absent or 0 (the API's default). */
const nonZero = (v: unknown): string => (v ? String(v) : '');

export function readNumber(raw: string, fail: Fail): number | undefined {
  const t = raw.trim();
  if (t === '') return undefined;
  if (!numberPattern.test(t)) return fail('must be a number'), undefined;
  return Number(t);
}

export function readInt(raw: string, fail: Fail): number | undefined {
  const t = raw.trim();
  if (t === '') return undefined;
  if (!integerPattern.test(t)) return fail('must be a whole number'), undefined;
  return Number(t);
}

export function readDuration(raw: string, fail: Fail): string | number | undefined {
  const t = raw.trim();
  if (t === '') return undefined;
  // A bare number is seconds, which the API takes as a JSON number.
  if (numberPattern.test(t)) return Number(t);
  if (!goDurationPattern.test(t)) return fail('must be a duration like 30s, 1m30s, 250ms, or a number of seconds'), undefined;
  return t;
}

export const readText = (raw: string): string | undefined => raw.trim() || undefined;

/**
 * parseLines reads "key<sep>value" lines, skipping blank ones; a line
 * without the separator or with an empty key is reported by its line number.
 */
export function parseLines(raw: string, sep: string, shape: string, fail: Fail): [string, string][] {
  const out: [string, string][] = [];
  raw.split('\n').forEach((line, i) => {
    const t = line.trim();
    if (!t) return;
    const at = t.indexOf(sep);
    if (at <= 0) {
      fail(`line ${i + 1}: write it as “${shape}”`);
      return;
    }
    out.push([t.slice(0, at).trim(), t.slice(at + 1).trim()]);
  });
  return out;
}

/** toMap makes key=value lines a map, refusing a key given twice. */
export function toMap(entries: [string, string][], fail: Fail): Record<string, string> {
  const m: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (k in m) fail(`“${k}” is given twice`);
    m[k] = v;
  }
  return m;
}

/** pairs writes a map as key=value lines. */
export function pairs(m: Record<string, string> | undefined): string {
  return Object.entries(m ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The codecs the field table names. */
export const codecs = {
  /** Trimmed text; empty is left out. */
  text: { to: readText, from: (v) => str(v) } satisfies Codec<string>,
  /** Text sent as typed (a payload keeps its spaces); empty is left out. */
  raw: { to: (raw) => (raw !== '' ? raw : undefined), from: (v) => str(v) } satisfies Codec<string>,
  /** A select's value; '' (the default choice) is left out. */
  choice: { to: (raw) => raw || undefined, from: (v) => str(v) } satisfies Codec<string>,
  /** A checkbox: true is sent, false left out. */
  flag: { to: (raw) => (raw ? true : undefined), from: (v) => !!v } satisfies Codec<boolean>,
  number: { to: readNumber, from: str } satisfies Codec<string>,
  /** A whole number; a stored 0 reads back as empty, the API's default. */
  int: { to: readInt, from: nonZero } satisfies Codec<string>,
  /** A whole number whose stored 0 means 0. */
  intZero: { to: readInt, from: str } satisfies Codec<string>,
  duration: { to: readDuration, from: str } satisfies Codec<string>,
  /** One URL per line; blank lines and # comments skipped. */
  urlLines: {
    to: (raw) => {
      const urls = raw
        .split('\n')
        .map((u) => u.trim())
        .filter((u) => u !== '' && !u.startsWith('#'));
      return urls.length > 0 ? urls : undefined;
    },
    from: (v) => list(v).join('\n'),
  } satisfies Codec<string>,
  /** Comma- or space-separated words, in order; none is left out. */
  wordList: {
    to: (raw) => {
      const words = raw.split(/[\s,]+/).filter(Boolean);
      return words.length > 0 ? words : undefined;
    },
    from: (v) => list(v).join(', '),
  } satisfies Codec<string>,
  /** "Name: value" per line. */
  headerLines: {
    to: (raw, fail) => {
      const headers = parseLines(raw, ':', 'Name: value', fail);
      return headers.length > 0 ? headers.map(([k, v]) => `${k}: ${v}`) : undefined;
    },
    from: (v) => list(v).join('\n'),
  } satisfies Codec<string>,
  /** key=value per line, as a map. */
  pairLines: {
    to: (raw, fail) => {
      const entries = parseLines(raw, '=', 'key=value', fail);
      return entries.length > 0 ? toMap(entries, fail) : undefined;
    },
    from: (v) => pairs(v as Record<string, string> | undefined),
  } satisfies Codec<string>,
};

/** numberList reads comma- or space-separated numbers, naming each one that is not. */
export function numberList(raw: string, fail: Fail): number[] | undefined {
  const out: number[] = [];
  for (const p of raw.split(/[\s,]+/).filter(Boolean)) {
    if (!numberPattern.test(p)) fail(`“${p}” is not a number`);
    else out.push(Number(p));
  }
  return out.length > 0 ? out : undefined;
}

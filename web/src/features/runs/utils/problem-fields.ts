import type { Schemas } from '@/lib/api-client';
import { formSpecFields, specPathFields, type FieldErrors, type FormField } from './run-form';

type FieldError = Schemas['FieldError'];
type RunSpec = Schemas['RunSpec'];

/** Spec paths that name a whole block: the error is shown at the block's main input. */
const blocks: Record<string, FormField> = {
  ramp: 'ramp.to',
  grpc: 'grpc.mode',
  tls: 'tls.ca_cert',
  agents: 'agents.count',
  until_stopped: 'length',
};

/**
 * formFieldOf maps the JSON path of a problem's field error to the form
 * input it is about, or undefined when no input matches (the error then
 * goes to the summary). `name` is the run's name on POST /runs and the test's
 * on POST /tests. Array items (`spec.headers[2]`) and map entries
 * (`labels.team`, `spec.agents.selector.zone`) land on their textarea; a
 * spec field without an input of its own (`spec.requests[1].weight`) lands
 * on the "more spec fields" input that holds it.
 */
export function formFieldOf(path: string, body: 'run' | 'test' = 'run'): FormField | undefined {
  if (path === 'name') return body === 'test' ? 'test_name' : 'name';
  if (/^thresholds(\[\d+\])?$/.test(path)) return 'thresholds';
  if (path === 'labels' || path.startsWith('labels.')) return 'labels';
  if (!path.startsWith('spec.')) return undefined;
  const p = path.slice('spec.'.length).replace(/\[\d+\]$/, '');
  if (p.startsWith('labels.')) return 'labels';
  if (p.startsWith('agents.selector.')) return 'agents.selector';
  if (specPathFields.has(p)) return p as FormField;
  if (Object.hasOwn(blocks, p)) return blocks[p];
  const head = /^[a-z0-9_]+/.exec(p)?.[0];
  return head && !formSpecFields.has(head) ? 'more' : undefined;
}

export interface MappedProblem {
  fields: FieldErrors;
  /** Errors no input matches, shown in the summary at the top. */
  other: FieldError[];
}

/**
 * mapProblemFields spreads a problem's field errors over the form. An error
 * about one item of a list names the item (its text, from the body that was
 * sent, or its position); a field with several errors shows them all.
 */
export function mapProblemFields(errors: readonly FieldError[], body: 'run' | 'test' = 'run', sent?: SentBody): MappedProblem {
  const fields: FieldErrors = {};
  const other: FieldError[] = [];
  for (const e of errors) {
    const f = formFieldOf(e.field, body);
    if (!f) {
      other.push(e);
      continue;
    }
    const msg = `${itemOf(e.field, sent)}${e.message}`;
    fields[f] = fields[f] ? `${fields[f]}; ${msg}` : msg;
  }
  return { fields, other };
}

/** The parts of the sent body whose list items an error may point at. */
export interface SentBody {
  spec?: Pick<RunSpec, 'headers' | 'percentiles' | 'tls'>;
  thresholds?: string[];
}

/** itemOf names the list item or map key a path ends in: `“X-Id: 1”: `, `team: `. */
function itemOf(path: string, sent?: SentBody): string {
  const idx = /^spec\.(headers|percentiles|tls\.curves)\[(\d+)\]$/.exec(path) ?? /^(thresholds)\[(\d+)\]$/.exec(path);
  if (idx) {
    const lists: Record<string, readonly unknown[] | undefined> = {
      thresholds: sent?.thresholds,
      headers: sent?.spec?.headers,
      percentiles: sent?.spec?.percentiles,
      'tls.curves': sent?.spec?.tls?.curves,
    };
    const list = lists[idx[1]!];
    const i = Number(idx[2]);
    const item = list?.[i];
    return item !== undefined ? `“${String(item)}”: ` : `item ${i + 1}: `;
  }
  const key = /^(?:spec\.)?(?:labels|agents\.selector)\.(.+)$/.exec(path);
  return key ? `${key[1]}: ` : '';
}

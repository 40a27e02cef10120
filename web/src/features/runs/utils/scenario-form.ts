// The New run page's scenario form (docs/scenarios.md): its state and the
// mapping to the POST /runs body, pure so that the rules are unit-tested
// apart from the markup. The scenario is written as YAML or JSON (JSON is
// YAML) and sent as the spec's scenario object; the API checks it and names
// each problem's field.
import { parse } from 'yaml';
import type { Schemas } from '@/lib/api-client';
import { codecs } from './run-form-codecs';

/** The largest data file a scenario carries (pkg/scenario MaxDataBytes). */
export const maxDataBytes = 512 * 1024;

/** A data file attached to the form (docs/scenarios.md, "Data files"): its rows set variables, a row an iteration. */
export interface ScenarioDataFile {
  /** The file's name; .jsonl or .ndjson is JSON lines, anything else CSV. */
  name: string;
  content: string;
  /** Each agent gets rows of its own. */
  split: boolean;
  /** A row drawn for each iteration, instead of in turn. */
  random: boolean;
}

export interface ScenarioFormState {
  name: string;
  scenario: string;
  /** Iterations per second; empty runs a closed loop of `connections` virtual users. */
  rate: string;
  connections: string;
  duration: string;
  /** A number of iterations; when set it bounds the run instead of the duration. */
  count: string;
  /** Thresholds, one a line: step("read").p(99) < 300ms, checks("ok") > 99%, … */
  thresholds: string;
  /** Labels, key=value a line. */
  labels: string;
  /** The data file, when one is attached. */
  data?: ScenarioDataFile;
  /** Skip certificate verification on the https:// and grpcs:// steps (-k). */
  insecure: boolean;
  /** The TLS settings of those steps (the spec's tls): PEM text, and the name sent in SNI. */
  caCert: string;
  clientCert: string;
  clientKey: string;
  serverName: string;
}

/** The form's text inputs. */
export type ScenarioField = Exclude<keyof ScenarioFormState, 'data' | 'insecure'>;
/** Errors by input; tls holds those of the TLS settings as a whole (spec.tls, spec.insecure). */
export type ScenarioErrors = Partial<Record<ScenarioField | 'data' | 'tls', string>>;

export const defaultScenarioForm: ScenarioFormState = {
  name: '',
  scenario: '',
  rate: '10',
  connections: '8',
  duration: '10s',
  count: '',
  thresholds: '',
  labels: '',
  insecure: false,
  caCert: '',
  clientCert: '',
  clientKey: '',
  serverName: '',
};

/** tlsSettings is the spec's tls from the form, undefined when no field is set. */
function tlsSettings(s: ScenarioFormState): Record<string, string> | undefined {
  const fields: [string, string][] = [
    ['ca_cert', s.caCert],
    ['client_cert', s.clientCert],
    ['client_key', s.clientKey],
    ['server_name', s.serverName],
  ];
  const set = fields.map(([k, v]) => [k, v.trim()]).filter(([, v]) => v !== '');
  return set.length > 0 ? Object.fromEntries(set) : undefined;
}

/** dataFormat is a data file's format by its name's extension. */
export const dataFormat = (name: string): 'csv' | 'jsonl' => (/\.(jsonl|ndjson)$/i.test(name) ? 'jsonl' : 'csv');

export type ScenarioRequest = { ok: true; body: Schemas['RunCreate'] } | { ok: false; errors: ScenarioErrors };

/** positive reads a number field: undefined when empty, NaN when it is not a number above 0. */
function positive(text: string): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const n = Number(t);
  return Number.isFinite(n) && n > 0 ? n : NaN;
}

/**
 * toScenarioRequest maps the form to the POST /runs body: the document must
 * parse as YAML or JSON into an object; the rate, when given, and the
 * connections are numbers above 0; the count, when given, a whole number,
 * and then it bounds the run instead of the duration. Range checks and every
 * problem inside the scenario are the API's.
 */
export function toScenarioRequest(s: ScenarioFormState, project: string): ScenarioRequest {
  const errors: ScenarioErrors = {};
  let scenario: unknown;
  if (s.scenario.trim() === '') {
    errors.scenario = 'Write the scenario: a name and its steps, as YAML or JSON.';
  } else {
    try {
      scenario = parse(s.scenario);
      if (scenario === null || typeof scenario !== 'object' || Array.isArray(scenario)) {
        errors.scenario = 'The scenario must be an object with a name and steps.';
      }
    } catch (e) {
      errors.scenario = `Not YAML or JSON: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
    }
  }
  const rate = positive(s.rate);
  if (Number.isNaN(rate)) errors.rate = 'A number of iterations per second above 0, or empty for a closed loop.';
  const connections = positive(s.connections);
  if (connections === undefined || Number.isNaN(connections) || !Number.isInteger(connections)) {
    errors.connections = 'A whole number above 0.';
  }
  const count = positive(s.count);
  if (Number.isNaN(count) || (count !== undefined && !Number.isInteger(count))) errors.count = 'A whole number of iterations above 0, or empty.';
  if (count === undefined && s.duration.trim() === '') errors.duration = 'A duration such as 30s, or a number of iterations.';
  const labels = codecs.pairLines.to(s.labels, (msg) => (errors.labels ??= msg));
  if (s.data && !errors.scenario) {
    const doc = scenario as Record<string, unknown>;
    if ('data' in doc) errors.data = 'The scenario has data of its own: remove it from the scenario, or remove the file.';
    else if (s.data.content.length > maxDataBytes) errors.data = `${s.data.name} is larger than ${maxDataBytes} bytes, the most a scenario carries.`;
    else {
      const data: Record<string, unknown> = { format: dataFormat(s.data.name), content: s.data.content };
      if (s.data.split) data.split = true;
      if (s.data.random) data.order = 'random';
      scenario = { ...doc, data };
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const spec: Record<string, unknown> = { scenario, connections };
  if (rate !== undefined) spec.iterations_per_second = rate;
  if (count !== undefined) spec.count = count;
  else spec.duration = s.duration.trim();
  if (s.insecure) spec.insecure = true;
  const tls = tlsSettings(s);
  if (tls) spec.tls = tls;
  const body = { project, spec } as Schemas['RunCreate'];
  if (s.name.trim() !== '') body.name = s.name.trim();
  const thresholds = s.thresholds.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (thresholds.length > 0) body.thresholds = thresholds;
  if (labels) body.labels = labels as Record<string, string>;
  return { ok: true, body };
}

/** The API's field for each of the form's inputs; a field under spec.scenario belongs to the document. */
const apiFields: [string, ScenarioField][] = [
  ['spec.iterations_per_second', 'rate'],
  ['spec.connections', 'connections'],
  ['spec.duration', 'duration'],
  ['spec.count', 'count'],
  ['spec.pacing', 'rate'],
  ['name', 'name'],
  ['labels', 'labels'],
  ['spec.tls.ca_cert', 'caCert'],
  ['spec.tls.client_cert', 'clientCert'],
  ['spec.tls.client_key', 'clientKey'],
  ['spec.tls.server_name', 'serverName'],
];

/**
 * scenarioProblems sorts the API's field errors: those of an input go next
 * to it (a threshold's, thresholds[i], under the thresholds with its line
 * number); those inside the scenario (spec.scenario.steps[1].url, …) are
 * listed under the document with their path, but those of its data next to
 * the data file when the form attached it (dataFromFile); the rest stay for
 * the summary.
 */
export function scenarioProblems(
  items: Schemas['FieldError'][],
  dataFromFile = false,
): {
  fields: ScenarioErrors;
  inScenario: Schemas['FieldError'][];
  rest: Schemas['FieldError'][];
} {
  const fields: ScenarioErrors = {};
  const inScenario: Schemas['FieldError'][] = [];
  const rest: Schemas['FieldError'][] = [];
  const add = (f: keyof ScenarioErrors, msg: string) => (fields[f] = [fields[f], msg].filter(Boolean).join('; '));
  for (const it of items) {
    const f = apiFields.find(([api]) => api === it.field || it.field.startsWith(`${api}.`))?.[1];
    const line = /^thresholds\[(\d+)\]/.exec(it.field);
    const data = /^spec\.scenario\.data(?:\.(\w+))?$/.exec(it.field);
    if (f) fields[f] ??= it.message;
    else if (it.field === 'spec.insecure' || it.field === 'spec.tls' || it.field.startsWith('spec.tls.')) add('tls', `${it.field.replace(/^spec\./, '')}: ${it.message}`);
    else if (line) add('thresholds', `line ${Number(line[1]) + 1}: ${it.message}`);
    else if (data && dataFromFile) add('data', data[1] === 'content' || !data[1] ? it.message : `${data[1]}: ${it.message}`);
    else if (it.field === 'spec.scenario' || it.field.startsWith('spec.scenario.')) inScenario.push(it);
    else rest.push(it);
  }
  return { fields, inScenario, rest };
}

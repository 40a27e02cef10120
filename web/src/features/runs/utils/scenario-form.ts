// The New run page's scenario form (docs/scenarios.md): its state and the
// mapping to the POST /runs body, pure so that the rules are unit-tested
// apart from the markup. The scenario is written as YAML or JSON (JSON is
// YAML) and sent as the spec's scenario object; the API checks it and names
// each problem's field.
import { parse } from 'yaml';
import type { Schemas } from '@/lib/api-client';

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
}

export type ScenarioField = keyof ScenarioFormState;
export type ScenarioErrors = Partial<Record<ScenarioField, string>>;

export const defaultScenarioForm: ScenarioFormState = {
  name: '',
  scenario: '',
  rate: '10',
  connections: '8',
  duration: '10s',
  count: '',
  thresholds: '',
};

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
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const spec: Record<string, unknown> = { scenario, connections };
  if (rate !== undefined) spec.iterations_per_second = rate;
  if (count !== undefined) spec.count = count;
  else spec.duration = s.duration.trim();
  const body = { project, spec } as Schemas['RunCreate'];
  if (s.name.trim() !== '') body.name = s.name.trim();
  const thresholds = s.thresholds.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (thresholds.length > 0) body.thresholds = thresholds;
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
];

/**
 * scenarioProblems sorts the API's field errors: those of an input go next
 * to it (a threshold's, thresholds[i], under the thresholds with its line
 * number); those inside the scenario (spec.scenario.steps[1].url, …) are
 * listed under the document with their path; the rest stay for the summary.
 */
export function scenarioProblems(items: Schemas['FieldError'][]): {
  fields: ScenarioErrors;
  inScenario: Schemas['FieldError'][];
  rest: Schemas['FieldError'][];
} {
  const fields: ScenarioErrors = {};
  const inScenario: Schemas['FieldError'][] = [];
  const rest: Schemas['FieldError'][] = [];
  for (const it of items) {
    const f = apiFields.find(([api]) => api === it.field)?.[1];
    const line = /^thresholds\[(\d+)\]/.exec(it.field);
    if (f) fields[f] ??= it.message;
    else if (line) fields.thresholds = [fields.thresholds, `line ${Number(line[1]) + 1}: ${it.message}`].filter(Boolean).join('; ');
    else if (it.field === 'spec.scenario' || it.field.startsWith('spec.scenario.')) inScenario.push(it);
    else rest.push(it);
  }
  return { fields, inScenario, rest };
}

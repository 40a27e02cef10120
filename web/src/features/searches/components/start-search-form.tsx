import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '@/lib/api-client';
import { useCreateSearch } from '../api/create-search';
import { buildObjective, checkNumbers, type Clause, type SearchNumbers } from '../utils/objective';
import { ObjectiveBuilder } from './objective-builder';

interface Form extends SearchNumbers {
  name: string;
  url: string;
  connections: string;
  agents: string;
  step: string;
  warmup: string;
}

const initial: Form = {
  name: '', url: '', connections: '8', agents: '0', step: '10s', warmup: '2s', minQps: '50', maxQps: '1000', resolutionPct: '5',
};

/** apiName is the API's name of each field, for the field errors of its 422. */
const apiName: Record<keyof Form, string> = {
  name: 'name', url: 'url', connections: 'connections', agents: 'agents.count', step: 'step_duration', warmup: 'warmup',
  minQps: 'min_qps', maxQps: 'max_qps', resolutionPct: 'resolution',
};

/**
 * StartSearchForm starts a capacity search in project: a target, an
 * objective built clause by clause, the rate range, each step's length and
 * warm-up, the resolution and how many agents share each step. The API
 * checks it all again; its answer's field errors show under the fields.
 */
export function StartSearchForm({ project, onClose }: { project: string; onClose: () => void }) {
  const [f, setF] = useState<Form>(initial);
  const [clauses, setClauses] = useState<Clause[]>([
    { metric: 'p(99)', op: '<', value: '50' },
    { metric: 'error_rate', op: '<', value: '1' },
  ]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [clauseErrors, setClauseErrors] = useState<Record<number, string>>({});
  const create = useCreateSearch();
  const navigate = useNavigate();
  const id = useId();
  const apiErrors = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  const err = (k: string) => errors[k] ?? apiErrors[k] ?? apiErrors[`spec.${k}`];
  const set = (k: keyof Form) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { objective, errors: ce } = buildObjective(clauses);
    const errs: Record<string, string> = { ...checkNumbers(f) };
    if (f.url.trim() === '') errs.url = 'The target URL';
    if (clauses.length === 0) errs.objective = 'Add at least one clause';
    const agents = Number(f.agents);
    if (!Number.isInteger(agents) || agents < 0) errs.agents = 'A whole number, 0 for every agent';
    const conns = Number(f.connections);
    if (!Number.isInteger(conns) || conns < 1) errs.connections = 'A whole number above 0';
    setErrors(errs);
    setClauseErrors(ce);
    if (Object.keys(errs).length > 0 || Object.keys(ce).length > 0) return;
    create.mutate(
      {
        project,
        name: f.name.trim() || undefined,
        objective,
        min_qps: Number(f.minQps),
        max_qps: Number(f.maxQps),
        step_duration: f.step.trim(),
        warmup: f.warmup.trim(),
        resolution: Number(f.resolutionPct) / 100,
        spec: { url: f.url.trim(), connections: conns, agents: { count: agents } },
      },
      { onSuccess: (s) => navigate(`/searches/${s.id}`) },
    );
  };

  const field = (k: keyof Form, label: string, hint: string, extra: Record<string, unknown> = {}): ReactNode => {
    const msg = errors[k] ?? err(apiName[k]);
    return (
      <label className="field" htmlFor={`${id}-${k}`}>
        {label} {hint && <span className="hint">{hint}</span>}
        <input id={`${id}-${k}`} value={f[k]} onChange={set(k)} {...extra}
          aria-invalid={msg ? true : undefined} aria-describedby={msg ? `${id}-${k}-err` : undefined} />
        {msg && <span className="field-error" id={`${id}-${k}-err`}>{msg}</span>}
      </label>
    );
  };

  const otherProblem = create.error && Object.keys(apiErrors).length === 0;
  return (
    <form className="card stack" onSubmit={submit} noValidate aria-label="Start a capacity search">
      <h2 style={{ margin: 0, fontSize: 16 }}>Start a capacity search</h2>
      <div className="form-grid">
        {field('name', 'Name', 'optional')}
        {field('url', 'Target URL', 'http(s), h2c, grpc, tcp or udp', { type: 'url', maxLength: 2048 })}
        {field('connections', 'Connections', 'in total', { inputMode: 'numeric' })}
        {field('agents', 'Agents', '0 for every agent', { inputMode: 'numeric' })}
      </div>
      <ObjectiveBuilder clauses={clauses} onChange={setClauses} errors={clauseErrors} problem={errors.objective ?? apiErrors.objective} />
      <div className="form-grid">
        {field('minQps', 'Min qps', 'the first rate tried', { inputMode: 'decimal' })}
        {field('maxQps', 'Max qps', 'the highest rate tried', { inputMode: 'decimal' })}
        {field('step', 'Step', 'measured length of each step', {})}
        {field('warmup', 'Warm-up', 'unmeasured start of each step', {})}
        {field('resolutionPct', 'Resolution (%)', 'stop when pass and fail are this close', { inputMode: 'decimal' })}
      </div>
      {otherProblem && (
        <div className="field-error" role="alert">
          {create.error instanceof ApiError ? (create.error.problem.detail ?? create.error.problem.title) : 'Cannot reach the API'}
        </div>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Starting…' : 'Start search'}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}

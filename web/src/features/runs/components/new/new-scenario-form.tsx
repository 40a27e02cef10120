import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useProject } from '@/lib/project';
import { useCreateRun } from '../../api/create-run';
import { newIdempotencyKey } from '../../utils/idempotency-key';
import {
  dataFormat,
  defaultScenarioForm,
  maxDataBytes,
  scenarioProblems,
  toScenarioRequest,
  type ScenarioDataFile,
  type ScenarioErrors,
  type ScenarioField,
  type ScenarioFormState,
} from '../../utils/scenario-form';
import './run-form.css';

const example = `name: login then read
steps:
  - name: login
    method: POST
    url: http://127.0.0.1:8088/login?header=X-Token:tok-{{.iteration}}
    extract: [{var: token, header: X-Token}]
    checks: [{name: login ok, status: [200]}]
  - name: profile
    url: http://127.0.0.1:8088/?t={{.token}}
    checks: [{name: profile ok, status: [200]}]`;

/** What the last submit got back that no input shows: the API's title and detail and its other field errors. */
interface Summary {
  title: string;
  detail?: string;
  items: Schemas['FieldError'][];
}

/**
 * NewScenarioForm starts a multi-step scenario run (docs/scenarios.md): the
 * scenario as YAML or JSON, the rate of iteration starts (or none, for a
 * closed loop of virtual users), the connections, a duration or a number
 * of iterations, and thresholds. The API's problems inside the scenario are listed under it
 * by path (steps[1].url, …); the others go next to their input.
 */
export function NewScenarioForm() {
  const uid = useId();
  const project = useProject();
  const navigate = useNavigate();
  const createRun = useCreateRun();
  const [state, setState] = useState<ScenarioFormState>(defaultScenarioForm);
  const [errors, setErrors] = useState<ScenarioErrors>({});
  const [inScenario, setInScenario] = useState<Schemas['FieldError'][]>([]);
  const [summary, setSummary] = useState<Summary>();
  const [attempt, setAttempt] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  // One Idempotency-Key per distinct body: a double submit makes one run.
  const idem = useRef<{ body: string; key: string }>(undefined);

  useEffect(() => {
    if (attempt === 0) return;
    const form = formRef.current;
    (form?.querySelector<HTMLElement>('.error-summary') ?? form?.querySelector<HTMLElement>('[aria-invalid="true"]'))?.focus();
  }, [attempt]);

  const set = (name: ScenarioField, value: string) => {
    setState((s) => ({ ...s, [name]: value }));
    setErrors((e) => (e[name] ? { ...e, [name]: undefined } : e));
    if (name === 'scenario') setInScenario([]);
  };

  const setData = (data: ScenarioDataFile | undefined, error?: string) => {
    setState((s) => ({ ...s, data }));
    setErrors((e) => ({ ...e, data: error }));
  };

  const attach = async (file: File | undefined) => {
    if (!file) return setData(undefined);
    if (file.size > maxDataBytes) return setData(undefined, `${file.name} is ${file.size} bytes: a data file may have at most ${maxDataBytes}.`);
    setData({ name: file.name, content: await file.text(), split: state.data?.split ?? false, random: state.data?.random ?? false });
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (createRun.isPending) return;
    const built = toScenarioRequest(state, project);
    if (!built.ok) {
      setErrors(built.errors);
      setInScenario([]);
      setSummary(undefined);
      setAttempt((a) => a + 1);
      return;
    }
    const json = JSON.stringify(built.body);
    if (idem.current?.body !== json) idem.current = { body: json, key: newIdempotencyKey() };
    try {
      const run = await createRun.mutateAsync({ body: built.body, idempotencyKey: idem.current.key });
      navigate(`/runs/${run.id}`);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const p = scenarioProblems(err.problem.errors ?? [], !!state.data);
      setErrors(p.fields);
      setInScenario(p.inScenario);
      setSummary({ title: err.problem.title, detail: err.problem.detail, items: p.rest });
      setAttempt((a) => a + 1);
    }
  };

  const field = (name: ScenarioField, label: string, hint: ReactNode, input: Record<string, unknown> = {}) => {
    const id = `${uid}-${name}`;
    const describedBy = [`${id}-hint`, errors[name] ? `${id}-error` : ''].filter(Boolean).join(' ');
    return (
      <label className="field">
        {label}
        <input
          id={id}
          name={name}
          value={state[name]}
          onChange={(e) => set(name, e.target.value)}
          aria-invalid={errors[name] ? true : undefined}
          aria-describedby={describedBy}
          {...input}
        />
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
        {errors[name] && (
          <span id={`${id}-error`} className="field-error">
            {errors[name]}
          </span>
        )}
      </label>
    );
  };

  const setInsecure = (insecure: boolean) => {
    setState((s) => ({ ...s, insecure }));
    setErrors((e) => (e.tls ? { ...e, tls: undefined } : e));
  };

  /** area is a textarea of text a line, with its hint and its error. */
  const area = (name: 'labels' | 'thresholds' | 'caCert' | 'clientCert' | 'clientKey', label: string, rows: number, placeholder: string, hint: ReactNode) => {
    const id = `${uid}-${name}`;
    return (
      <label className="field wide">
        {label}
        <textarea
          id={id}
          name={name}
          rows={rows}
          spellCheck={false}
          placeholder={placeholder}
          value={state[name]}
          onChange={(e) => set(name, e.target.value)}
          aria-invalid={errors[name] ? true : undefined}
          aria-describedby={[`${id}-hint`, errors[name] ? `${id}-error` : ''].filter(Boolean).join(' ')}
          className="mono"
        />
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
        {errors[name] && (
          <span id={`${id}-error`} className="field-error">
            {errors[name]}
          </span>
        )}
      </label>
    );
  };

  const docId = `${uid}-scenario`;
  const docInvalid = !!errors.scenario || inScenario.length > 0;
  return (
    <form ref={formRef} className="run-form" onSubmit={submit} noValidate aria-label="New scenario run">
      {summary && (
        <div className="card error-summary" role="alert" tabIndex={-1}>
          <strong>{summary.title}</strong>
          {summary.detail && <div>{summary.detail}</div>}
          {summary.items.length > 0 && (
            <ul>
              {summary.items.map((it, i) => (
                <li key={i}>
                  <code>{it.field}</code>: {it.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <fieldset>
        <legend>Scenario</legend>
        <div className="form-grid">
          {field('name', 'Name', 'optional; names the run in lists')}
          <label className="field wide">
            Scenario (YAML or JSON)
            <textarea
              id={docId}
              name="scenario"
              rows={14}
              spellCheck={false}
              placeholder={example}
              value={state.scenario}
              onChange={(e) => set('scenario', e.target.value)}
              aria-invalid={docInvalid ? true : undefined}
              aria-describedby={[`${docId}-hint`, docInvalid ? `${docId}-error` : ''].filter(Boolean).join(' ')}
              className="mono"
            />
            <span id={`${docId}-hint`} className="hint">
              Steps with their URL, headers, body, extract, checks and think time; <code>{'{{.var}}'}</code> for variables (docs/scenarios.md).
            </span>
            {docInvalid && (
              <span id={`${docId}-error`} className="field-error" data-testid="scenario-errors">
                {errors.scenario}
                {inScenario.length > 0 && (
                  <ul>
                    {inScenario.map((it, i) => (
                      <li key={i}>
                        <code>{it.field.replace(/^spec\.scenario\.?/, '') || 'scenario'}</code>: {it.message}
                      </li>
                    ))}
                  </ul>
                )}
              </span>
            )}
          </label>
        </div>
      </fieldset>
      <fieldset>
        <legend>Data file</legend>
        <div className="form-grid">
          <label className="field wide">
            Data file (CSV or JSON lines)
            <input
              id={`${uid}-data`}
              type="file"
              name="data"
              accept=".csv,.jsonl,.ndjson,.txt,text/csv"
              onChange={(e) => void attach(e.target.files?.[0])}
              aria-invalid={errors.data ? true : undefined}
              aria-describedby={[`${uid}-data-hint`, errors.data ? `${uid}-data-error` : ''].filter(Boolean).join(' ')}
            />
            <span id={`${uid}-data-hint`} className="hint" data-testid="data-file">
              {state.data
                ? `${state.data.name}: ${dataFormat(state.data.name) === 'jsonl' ? 'JSON lines' : 'CSV'}, ${state.data.content.length} bytes; its columns are variables, a row an iteration`
                : 'optional; its columns are variables ({{.user}}), a row an iteration: CSV with a header row, or a JSON object a line'}
            </span>
            {errors.data && (
              <span id={`${uid}-data-error`} className="field-error">
                {errors.data}
              </span>
            )}
          </label>
          <div className="field">
            <span>Rows</span>
            <div className="checks">
              <label className="check">
                <input
                  type="checkbox"
                  name="data-split"
                  checked={state.data?.split ?? false}
                  disabled={!state.data}
                  onChange={(e) => state.data && setData({ ...state.data, split: e.target.checked })}
                />
                Give each agent rows of its own
              </label>
              <label className="check">
                <input
                  type="checkbox"
                  name="data-random"
                  checked={state.data?.random ?? false}
                  disabled={!state.data}
                  onChange={(e) => state.data && setData({ ...state.data, random: e.target.checked })}
                />
                A random row each iteration (else in turn)
              </label>
            </div>
          </div>
        </div>
      </fieldset>
      <fieldset>
        <legend>Load</legend>
        <div className="form-grid">
          {field('rate', 'Iterations per second', 'iterations started each second, across the agents; empty: a closed loop', { inputMode: 'decimal' })}
          {field('connections', 'Connections', 'the most iterations in flight; in a closed loop, the virtual users', { inputMode: 'numeric' })}
          {field('duration', 'Duration', 'how long iterations start, e.g. 30s')}
          {field('count', 'Iterations', 'optional: exactly this many, instead of the duration', { inputMode: 'numeric' })}
        </div>
      </fieldset>
      <fieldset aria-describedby={errors.tls ? `${uid}-tls-error` : undefined}>
        <legend>TLS, for the https:// and grpcs:// steps</legend>
        <div className="form-grid">
          {errors.tls && (
            <p id={`${uid}-tls-error`} className="field-error wide">
              {errors.tls}
            </p>
          )}
          <label className="check wide">
            <input type="checkbox" name="insecure" checked={state.insecure} onChange={(e) => setInsecure(e.target.checked)} />
            Skip certificate verification (-k)
          </label>
          {state.insecure && (
            <p className="insecure-warning wide" role="note">
              Certificate verification is off (-k): any server certificate is accepted, so a machine in the path can stand in for the target. Use a CA
              certificate below instead where you can.
            </p>
          )}
          {area('caCert', 'CA certificate (PEM)', 3, '-----BEGIN CERTIFICATE-----', 'optional; verifies the servers instead of the system roots')}
          {area('clientCert', 'Client certificate (PEM)', 3, '-----BEGIN CERTIFICATE-----', 'optional; sent for mTLS, with its key')}
          {area('clientKey', 'Client key (PEM)', 3, '-----BEGIN PRIVATE KEY-----', 'a secret: sealed at rest and never shown again')}
          {field('serverName', 'Server name (SNI)', 'optional; sent and verified instead of each URL\'s host')}
        </div>
      </fieldset>
      <fieldset>
        <legend>Labels and thresholds</legend>
        <div className="form-grid">
          {area('labels', 'Labels, key=value a line', 2, 'team=payments\nbuild=1234', 'optional; to find and compare runs')}
          {area(
            'thresholds',
            'Thresholds, one a line',
            3,
            'step("profile").p(99) < 300ms\nchecks("profile ok") > 99.9%',
            <>
              optional; a step&apos;s figures with <code>step(&quot;NAME&quot;)</code>, a check&apos;s pass rate with <code>checks(&quot;NAME&quot;)</code>
            </>,
          )}
        </div>
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" data-testid="start-scenario" disabled={createRun.isPending}>
          {createRun.isPending ? 'Starting…' : 'Start scenario run'}
        </button>
      </div>
    </form>
  );
}

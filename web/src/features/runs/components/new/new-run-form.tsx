import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type SyntheticEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useProject } from '@/lib/project';
import { useCreateRun } from '../../api/create-run';
import { useCreateTest } from '../../api/create-test';
import { newIdempotencyKey } from '../../utils/idempotency-key';
import { mapProblemFields, type SentBody } from '../../utils/problem-fields';
import {
  asStoredTestRun,
  defaultFormState,
  formFromTest,
  isGrpc,
  protocolOf,
  protocolText,
  runOfTest,
  toRunRequest,
  type FieldErrors,
  type FormField,
  type LengthMode,
  type RunFormState,
} from '../../utils/run-form';
import { AreaField, CheckField, FieldNotes, fieldId, RunFormContext, SelectField, TextField, type FormCtx } from './form-fields';
import './run-form.css';

type Test = Schemas['Test'];

/** Fields inside each collapsed <details>, so an error there opens it. */
const sections = {
  pacing: ['pacing', 'jitter', 'uniform', 'no_catchup', 'burst', 'abort_if_rate_not_held', 'ramp.from', 'ramp.to', 'ramp.over'],
  urls: ['urls', 'url_order', 'urls_from_run', 'record_written_urls'],
  request: [
    'payload',
    'content_type',
    'timeout',
    'h2',
    'h3',
    'insecure',
    'abort_on',
    'http10',
    'compression',
    'follow_redirects',
    'prefetch',
    'unix_socket',
    'max_requests_per_connection',
  ],
  more: ['more'],
} satisfies Record<string, FormField[]>;
type Section = keyof typeof sections;

/** Problems of the last submit that no input matches. */
interface Summary {
  title: string;
  detail?: string;
  items: Schemas['FieldError'][];
}

const lengthChoices: [LengthMode, string][] = [
  ['duration', 'Duration'],
  ['count', 'Count'],
  ['until_stopped', 'Until stopped'],
];

/**
 * NewRunForm starts a run with Fortio's familiar options, optionally saving
 * them as a test first. `test` prefills the form from a stored test.
 */
export function NewRunForm({ test }: { test?: Test }) {
  const uid = useId();
  const project = useProject();
  const navigate = useNavigate();
  const createRun = useCreateRun();
  const createTest = useCreateTest();
  const [state, setState] = useState<RunFormState>(() => (test ? formFromTest(test) : defaultFormState));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [summary, setSummary] = useState<Summary>();
  // A test with a URL list or more spec fields shows them from the start.
  const [open, setOpen] = useState<Record<Section, boolean>>(() => ({
    pacing: false,
    urls: state.urls !== '' || state.urls_from_run !== '' || state.record_written_urls,
    request: false,
    more: state.more !== '',
  }));
  // Bumped on each failed submit, so focus moves to the first problem.
  const [attempt, setAttempt] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const busy = useRef(false);
  // One Idempotency-Key per distinct body: a double submit repeats the key and makes one run.
  const idem = useRef<{ body: string; key: string }>(undefined);
  // The test saved by an earlier submit whose run failed, so a retry does not save it twice.
  const saved = useRef<{ body: string; id: string }>(undefined);

  const toggle = (sec: Section) => (e: SyntheticEvent<HTMLDetailsElement>) => {
    const isOpen = e.currentTarget.open;
    setOpen((o) => ({ ...o, [sec]: isOpen }));
  };

  const set = <K extends FormField>(name: K, value: RunFormState[K]) => {
    setState((s) => ({ ...s, [name]: value }));
    // The message was about the old value; drop it once the user edits the field.
    setErrors((e) => (e[name] ? { ...e, [name]: undefined } : e));
  };
  const ctx: FormCtx = { state, set, errors, uid };

  useEffect(() => {
    if (attempt === 0) return;
    const form = formRef.current;
    const target = form?.querySelector<HTMLElement>('.error-summary') ?? form?.querySelector<HTMLElement>('[aria-invalid="true"]');
    target?.focus();
  }, [attempt]);

  const fail = (fields: FieldErrors, s?: Summary) => {
    setErrors(fields);
    setSummary(s);
    setOpen((o) => {
      const next = { ...o };
      for (const [sec, names] of Object.entries(sections) as [Section, FormField[]][]) {
        if (names.some((n) => fields[n])) next[sec] = true;
      }
      return next;
    });
    setAttempt((a) => a + 1);
  };

  const failWith = (err: unknown, body: 'run' | 'test', sent: SentBody) => {
    if (!(err instanceof ApiError)) {
      fail({}, { title: 'Cannot reach the API', detail: err instanceof Error ? err.message : undefined, items: [] });
      return;
    }
    const mapped = mapProblemFields(err.problem.errors ?? [], body, sent);
    const what = body === 'test' ? 'The test was not saved' : 'The run was not started';
    const hasFields = Object.keys(mapped.fields).length > 0;
    if (hasFields && mapped.other.length === 0) {
      fail(mapped.fields);
      return;
    }
    fail(mapped.fields, { title: `${what}: ${err.problem.title}`, detail: err.problem.detail, items: mapped.other });
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy.current) return;
    const built = toRunRequest(state, project);
    if (!built.ok) {
      fail(built.errors);
      return;
    }
    busy.current = true;
    setErrors({});
    setSummary(undefined);
    try {
      let body: Schemas['RunCreate'] = built.run;
      if (built.test) {
        const key = JSON.stringify(built.test);
        let testId = saved.current?.body === key ? saved.current.id : undefined;
        if (!testId) {
          try {
            testId = (await createTest.mutateAsync(built.test)).id;
          } catch (err) {
            failWith(err, 'test', { spec: built.test.spec, thresholds: built.test.thresholds });
            return;
          }
          saved.current = { body: key, id: testId };
        }
        body = runOfTest(built.run, testId);
      } else if (test) {
        body = asStoredTestRun(built.run, test) ?? built.run;
      }
      const json = JSON.stringify(body);
      if (idem.current?.body !== json) idem.current = { body: json, key: newIdempotencyKey() };
      try {
        const run = await createRun.mutateAsync({ body, idempotencyKey: idem.current.key });
        navigate(`/runs/${run.id}`);
      } catch (err) {
        failWith(err, 'run', { spec: built.run.spec, thresholds: built.run.thresholds });
      }
    } finally {
      busy.current = false;
    }
  };

  const protocol = protocolOf(state.url);
  const grpc = isGrpc(state.url);
  const pending = createRun.isPending || createTest.isPending;
  const fieldErrorCount = useMemo(() => Object.values(errors).filter(Boolean).length, [errors]);

  return (
    <RunFormContext value={ctx}>
      <form ref={formRef} className="run-form" onSubmit={submit} noValidate aria-describedby={summary ? `${uid}-summary` : undefined}>
        {summary && (
          <div id={`${uid}-summary`} className="card error-summary" role="alert" tabIndex={-1}>
            <strong>{summary.title}</strong>
            {summary.detail && <div>{summary.detail}</div>}
            {(summary.items.length > 0 || fieldErrorCount > 0) && (
              <ul>
                {summary.items.map((it, i) => (
                  <li key={i}>
                    {it.field ? <code>{it.field}</code> : null}
                    {it.field ? ': ' : ''}
                    {it.message}
                  </li>
                ))}
                {fieldErrorCount > 0 && <li>{fieldErrorCount === 1 ? 'One field below needs' : `${fieldErrorCount} fields below need`} attention.</li>}
              </ul>
            )}
          </div>
        )}
        {test && (
          <div className="card from-test">
            Prefilled from test <Link to={`/tests/${test.id}`}>{test.name}</Link>. Left as it is, the run is started from the test and listed
            under it; with the spec edited, the edited spec runs on its own.
          </div>
        )}

        <fieldset>
          <legend>Target</legend>
          <div className="form-grid">
            <TextField
              name="url"
              label="URL"
              className="wide"
              type="url"
              required
              aria-required
              placeholder="http://service.internal:8080/path"
              autoComplete="off"
              spellCheck={false}
              hint={
                protocol === undefined ? (
                  'http, https, h2c, grpc, grpcs, tcp or udp'
                ) : protocol === 'unknown' ? (
                  // The API's message says the same once it has answered.
                  !errors.url && <span className="protocol warn">Unknown scheme; use http, https, h2c, grpc, grpcs, tcp or udp</span>
                ) : (
                  <span className="protocol">Protocol: {protocolText[protocol]}</span>
                )
              }
            />
            <TextField name="name" label="Run name" placeholder="optional" autoComplete="off" />
          </div>
          <details open={open.urls} onToggle={toggle('urls')}>
            <summary>URL list and written URLs</summary>
            <div className="form-grid">
              <AreaField
                name="urls"
                label="List of URLs"
                rows={4}
                placeholder={'http://service.internal:8080/a\nhttp://service.internal:8080/item/{rand:5000}'}
                hint="Instead of the URL's path: one per line, each on the URL's scheme and host; # starts a comment (up to 10,000, HTTP/1.1)"
              />
              <SelectField
                name="url_order"
                label="Order"
                options={[
                  ['', 'Round robin (default)'],
                  ['round_robin', 'Round robin'],
                  ['random', 'Random'],
                ]}
              />
              <TextField
                name="urls_from_run"
                label="Read URLs written by run"
                placeholder="run id"
                autoComplete="off"
                spellCheck={false}
                hint="An ended run of this project that recorded its written URLs; they replace the list"
              />
              <div className="field">
                <span>Record</span>
                <div className="checks">
                  <CheckField
                    name="record_written_urls"
                    label="Record written URLs"
                    hint="Keep the URL of every write answered 2xx (up to 1,000,000), to read back in a later run; HTTP/1.1"
                  />
                </div>
              </div>
            </div>
          </details>
        </fieldset>

        <fieldset>
          <legend>Load</legend>
          <div className="form-grid">
            <TextField name="qps" label="QPS" inputMode="decimal" hint="Total across agents; 0 = as fast as possible" />
            <TextField name="connections" label="Connections" inputMode="numeric" hint="In total (Fortio -c)" />
            <div className="wide length-row">
              <div className="field" role="radiogroup" aria-labelledby={`${uid}-length-label`} aria-describedby={errors.length ? `${fieldId(uid, 'length')}-error` : undefined}>
                <span id={`${uid}-length-label`}>Run for</span>
                <div className="segmented">
                  {lengthChoices.map(([v, text]) => (
                    <label key={v}>
                      <input type="radio" name="length" value={v} checked={state.length === v} onChange={() => set('length', v)} />
                      {text}
                    </label>
                  ))}
                </div>
                <FieldNotes name="length" />
              </div>
              {state.length === 'duration' && <TextField name="duration" label="Duration" placeholder="30s" hint="e.g. 30s, 1m30s (Fortio -t)" />}
              {state.length === 'count' && <TextField name="count" label="Count" inputMode="numeric" hint="Exact number of calls (Fortio -n)" />}
              {state.length === 'until_stopped' && <p className="muted until-stopped">Runs until you press Stop on the run page.</p>}
            </div>
          </div>
          <details open={open.pacing} onToggle={toggle('pacing')}>
            <summary>Pacing and ramp</summary>
            <div className="form-grid">
              <SelectField
                name="pacing"
                label="Pacing"
                options={[
                  ['', 'Default (open with qps, closed at 0)'],
                  ['open', 'Open loop'],
                  ['closed', 'Closed loop'],
                  ['fortio', 'Fortio'],
                ]}
              />
              <div className="field">
                <span>Options</span>
                <div className="checks">
                  <CheckField name="jitter" label="Jitter" hint="±10% noise on send times (Fortio -jitter)" />
                  <CheckField name="uniform" label="Uniform" hint="Spread the first sends over one period (Fortio -uniform)" />
                  <CheckField name="no_catchup" label="No catch-up" hint="Fortio pacing only (Fortio -nocatchup)" />
                  <CheckField
                    name="abort_if_rate_not_held"
                    label="Stop if rate not held"
                    hint="Fail the run when it stays over 5% under the target rate for 5 s (Goader -stop-on-bad-rate)"
                  />
                </div>
              </div>
              <TextField name="burst" label="Burst" inputMode="numeric" hint="Open pacing: requests sent at once; the rate stays qps (Nighthawk)" />
              <TextField name="ramp.from" label="Ramp from (qps)" inputMode="decimal" placeholder="0" className="row-start" />
              <TextField name="ramp.to" label="Ramp to (qps)" inputMode="decimal" />
              <TextField name="ramp.over" label="Ramp over" placeholder="30s" hint="Open pacing only" />
            </div>
          </details>
        </fieldset>

        <fieldset>
          <legend>Request</legend>
          <div className="form-grid">
            <TextField name="method" label="Method" placeholder="GET (POST with a payload)" autoComplete="off" />
            <AreaField name="headers" label="Headers" placeholder={'X-Request-Source: barrage\nAuthorization: Bearer …'} hint="One per line, “Name: value” (Fortio -H)" />
          </div>
          <details open={open.request} onToggle={toggle('request')}>
            <summary>Body, timeout, TLS and connections</summary>
            <div className="form-grid">
              <AreaField name="payload" label="Payload" hint="Request body; the message for TCP, UDP and gRPC ping" />
              <TextField name="content_type" label="Content type" placeholder="application/json" />
              <TextField name="timeout" label="Timeout" placeholder="3s" hint="Per request" />
              <TextField name="abort_on" label="Abort on status" inputMode="numeric" hint="HTTP status that stops the run; -1 = socket errors" />
              <div className="field">
                <span>TLS</span>
                <div className="checks">
                  <CheckField name="h2" label="HTTP/2 (h2)" hint="HTTP/2 over TLS, for https URLs" />
                  <CheckField name="h3" label="HTTP/3 (h3)" hint="HTTP/3 over QUIC, for https URLs" />
                  <CheckField name="insecure" label="Skip certificate check (-k)" />
                </div>
              </div>
              <div className="field">
                <span>HTTP</span>
                <div className="checks">
                  <CheckField name="http10" label="HTTP/1.0" hint="Fortio -http1.0" />
                  <CheckField name="compression" label="Ask for gzip" hint="Bytes counted compressed (Fortio -compression)" />
                  <CheckField name="follow_redirects" label="Follow redirects" hint="Up to 10 (Fortio -L)" />
                  <CheckField name="prefetch" label="Prefetch connections" hint="Reopen closed connections outside the measure (Nighthawk)" />
                </div>
              </div>
              <TextField name="max_requests_per_connection" label="Requests per connection" inputMode="numeric" hint="Then a new connection; empty = no limit" />
              <TextField name="unix_socket" label="Unix socket" placeholder="/run/app.sock" hint="Needs unix:PATH in the project's allow-list" />
            </div>
          </details>
        </fieldset>

        {grpc && (
          <fieldset>
            <legend>gRPC</legend>
            <div className="form-grid">
              <SelectField
                name="grpc.mode"
                label="Mode"
                options={[
                  ['', 'Health check (default)'],
                  ['health', 'Health check'],
                  ['ping', 'Fortio ping'],
                  ['method', 'Any unary method (server reflection)'],
                ]}
              />
              {state['grpc.mode'] === 'ping' ? (
                <TextField name="grpc.ping_delay" label="Ping delay" placeholder="0s" hint="The server waits this long before replying" />
              ) : state['grpc.mode'] === 'method' ? (
                <TextField
                  name="grpc.method"
                  label="Method"
                  placeholder="package.Service/Method"
                  hint="Found by server reflection; the payload is its request in JSON"
                />
              ) : (
                <TextField name="grpc.service" label="Service" placeholder="empty = the server's overall health" />
              )}
              <TextField name="grpc.streams" label="Streams" inputMode="numeric" placeholder="1" hint="Calls in flight per connection (Fortio -s)" />
            </div>
          </fieldset>
        )}

        <fieldset>
          <legend>Distribution</legend>
          <div className="form-grid">
            <TextField name="agents.count" label="Agents" inputMode="numeric" placeholder="all" hint="How many agents share the load; empty or 0 = every matching agent" />
            <AreaField name="agents.selector" label="Agent selector" rows={2} width="half" placeholder="region=eu-west" hint="Only agents with these labels, one key=value per line" />
          </div>
        </fieldset>

        <fieldset>
          <legend>Labels &amp; thresholds</legend>
          <div className="form-grid">
            <AreaField name="labels" label="Labels" rows={3} width="half" placeholder={'team=payments\nbuild=1234'} hint="One key=value per line, to find and compare runs" />
            <AreaField name="thresholds" label="Thresholds" rows={3} width="half" placeholder={'p(99) < 250ms\nerror_rate < 1%'} hint="One expression per line, stored with the run" />
            <TextField name="percentiles" label="Percentiles" hint="Comma-separated (Fortio -p)" />
          </div>
          <details open={open.more} onToggle={toggle('more')}>
            <summary>More spec fields (JSON)</summary>
            <div className="form-grid">
              <AreaField
                name="more"
                label="More spec fields"
                rows={6}
                placeholder={'{"stages": [{"qps": 50, "duration": "30s"}, {"qps": 100, "duration": "30s"}]}'}
                hint="A JSON object of the spec fields with no input above: requests (a request mix), stages, latency_header, payload_file"
              />
            </div>
          </details>
        </fieldset>

        <div className="actions">
          <button type="submit" className="primary" data-testid="start-run" disabled={pending}>
            {pending ? 'Starting…' : state.save_as_test ? 'Save test and start run' : 'Start run'}
          </button>
          <CheckField name="save_as_test" label="Save as a test" />
          {state.save_as_test && <TextField name="test_name" label="Test name" required aria-required autoComplete="off" />}
        </div>
      </form>
    </RunFormContext>
  );
}

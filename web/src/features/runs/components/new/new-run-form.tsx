import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type SyntheticEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useProject } from '@/lib/project';
import { useCreateRun } from '../../api/create-run';
import { useCreateTest } from '../../api/create-test';
import { newIdempotencyKey } from '../../utils/idempotency-key';
import { mapProblemFields, type SentBody } from '../../utils/problem-fields';
import { asStoredTestRun, defaultFormState, formFromTest, runOfTest, storedSecretErrors, toRunRequest, type FieldErrors, type FormField, type RunFormState } from '../../utils/run-form';
import { collapsedSectionFields, runFormSections, type SectionId } from '../../utils/run-form-fields';
import { RunFormContext, type FormCtx } from './form-fields';
import { ActionsSection } from './sections/actions-section';
import { DistributionSection } from './sections/distribution-section';
import { GrpcSection } from './sections/grpc-section';
import { LabelsSection } from './sections/labels-section';
import { LoadSection } from './sections/load-section';
import { RequestSection } from './sections/request-section';
import { TargetSection } from './sections/target-section';
import './run-form.css';

type Test = Schemas['Test'];

/** Problems of the last submit that no input matches. */
interface Summary {
  title: string;
  detail?: string;
  items: Schemas['FieldError'][];
}

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
  const [open, setOpen] = useState<Partial<Record<SectionId, boolean>>>(() => initiallyOpen(state));
  // Bumped on each failed submit, so focus moves to the first problem.
  const [attempt, setAttempt] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const busy = useRef(false);
  // One Idempotency-Key per distinct body: a double submit repeats the key and makes one run.
  const idem = useRef<{ body: string; key: string }>(undefined);
  // The test saved by an earlier submit whose run failed, so a retry does not save it twice.
  const saved = useRef<{ body: string; id: string }>(undefined);

  const toggle = (sec: SectionId) => (e: SyntheticEvent<HTMLDetailsElement>) => {
    const isOpen = e.currentTarget.open;
    setOpen((o) => ({ ...o, [sec]: isOpen }));
  };

  const set = <K extends FormField>(name: K, value: RunFormState[K]) => {
    setState((s) => ({ ...s, [name]: value }));
    // The message was about the old value; drop it once the user edits the field.
    setErrors((e) => (e[name] ? { ...e, [name]: undefined } : e));
  };
  const ctx: FormCtx = { state, set, errors, uid, open, toggle };

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
      for (const [sec, names] of Object.entries(collapsedSectionFields) as [SectionId, FormField[]][]) {
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
    // A stored test's sealed client key runs only as that test.
    const fromTest = test && !built.test ? asStoredTestRun(built.run, test) : undefined;
    const sealed = fromTest ? {} : storedSecretErrors(built.run.spec);
    if (Object.keys(sealed).length > 0) {
      fail(sealed, { title: 'The run was not started: the stored client certificate and key are sealed with the test', items: [] });
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
      } else if (fromTest) {
        body = fromTest;
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

        <TargetSection />
        <LoadSection />
        <RequestSection />
        <GrpcSection />
        <DistributionSection />
        <LabelsSection />
        <ActionsSection pending={pending} />
      </form>
    </RunFormContext>
  );
}

/** initiallyOpen opens a collapsed section when a prefilled field it shows from the start has a value. */
function initiallyOpen(state: RunFormState): Partial<Record<SectionId, boolean>> {
  const open: Partial<Record<SectionId, boolean>> = {};
  for (const id of Object.keys(collapsedSectionFields) as SectionId[]) {
    const shown: readonly string[] = runFormSections[id].opensWhenSet;
    open[id] = shown.some((f) => state[f as FormField] !== defaultFormState[f as FormField]);
  }
  return open;
}

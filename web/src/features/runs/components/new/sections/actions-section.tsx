import { Field, useFormCtx } from '../form-fields';

/** ActionsSection: the submit button and "save as a test" with its name. */
export function ActionsSection({ pending }: { pending: boolean }) {
  const { state } = useFormCtx();
  return (
    <div className="actions">
      <button type="submit" className="primary" data-testid="start-run" disabled={pending}>
        {pending ? 'Starting…' : state.save_as_test ? 'Save test and start run' : 'Start run'}
      </button>
      <Field name="save_as_test" />
      {state.save_as_test && <Field name="test_name" />}
    </div>
  );
}

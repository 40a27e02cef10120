import { useFormCtx } from '../form-fields';
import { SectionFields } from '../section-fields';

/** ActionsSection: the submit button, then "save as a test" and the test's name. */
export function ActionsSection({ pending }: { pending: boolean }) {
  const { state } = useFormCtx();
  return (
    <div className="actions">
      <button type="submit" className="primary" data-testid="start-run" disabled={pending}>
        {pending ? 'Starting…' : state.save_as_test ? 'Save test and start run' : 'Start run'}
      </button>
      <SectionFields section="actions" />
    </div>
  );
}

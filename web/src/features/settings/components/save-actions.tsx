/**
 * SaveActions ends a settings form: the error that belongs to no field, then,
 * for a caller who may edit, the submit button (label while idle) and
 * "Saved." once the last save went through.
 */
export function SaveActions({ general, editable, pending, saved, label }: {
  general: string | undefined;
  editable: boolean;
  pending: boolean;
  saved: boolean;
  label: string;
}) {
  return (
    <>
      {general && (
        <div className="field-error" role="alert">
          {general}
        </div>
      )}
      {editable && (
        <div className="actions">
          <button type="submit" className="primary" disabled={pending}>
            {pending ? 'Saving…' : label}
          </button>
          {saved && !pending && (
            <span className="muted" role="status">
              Saved.
            </span>
          )}
        </div>
      )}
    </>
  );
}

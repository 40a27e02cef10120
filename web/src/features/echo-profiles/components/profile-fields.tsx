import { ApiError } from '@/lib/api-client';
import { problemText } from './problem-text';

/** ProfileDraft is what a profile form edits. */
export interface ProfileDraft {
  name: string;
  content: string;
}

/** ProfileErrors are a failed save spread over a profile form. */
export interface ProfileErrors {
  /** The API's message for each field it named (name, content). */
  fields: Record<string, string>;
  /** What to show above the buttons when no input is named. */
  other?: string;
}

/**
 * profileErrors reads a failed save: the problem's field errors go under
 * their input, anything else (a conflict, an unreachable API) above the buttons.
 */
export function profileErrors(err: unknown): ProfileErrors {
  if (!err) return { fields: {} };
  const fields = err instanceof ApiError ? err.fieldErrors() : {};
  return { fields, other: !fields.name && !fields.content ? problemText(err) : undefined };
}

interface Props {
  /** id prefixes the inputs' ids (useId of the form). */
  id: string;
  draft: ProfileDraft;
  onChange: (d: ProfileDraft) => void;
  fields: Record<string, string>;
}

/** ProfileFields are the name and content inputs of a profile form, each with its error under it. */
export function ProfileFields({ id, draft, onChange, fields }: Props) {
  return (
    <>
      <label className="field" htmlFor={`${id}-name`}>
        Name
        <input id={`${id}-name`} value={draft.name} onChange={(e) => onChange({ ...draft, name: e.target.value })}
          aria-invalid={fields.name ? true : undefined} aria-describedby={fields.name ? `${id}-name-err` : undefined} />
      </label>
      {fields.name && <span className="field-error" id={`${id}-name-err`}>{fields.name}</span>}
      <label className="field" htmlFor={`${id}-content`}>
        Content <span className="hint">echo parameters, e.g. status=503:20&amp;delay=100ms:10</span>
        <input id={`${id}-content`} className="mono" value={draft.content} onChange={(e) => onChange({ ...draft, content: e.target.value })}
          aria-invalid={fields.content ? true : undefined} aria-describedby={fields.content ? `${id}-content-err` : undefined} />
      </label>
      {fields.content && <span className="field-error" id={`${id}-content-err`}>{fields.content}</span>}
    </>
  );
}

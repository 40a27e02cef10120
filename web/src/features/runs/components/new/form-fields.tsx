import { createContext, use, useState, type InputHTMLAttributes, type ReactNode, type SyntheticEvent } from 'react';
import { fieldRow, runFormSections, type InputProps, type SectionId } from '../../utils/run-form-fields';
import { redactedValue, type FieldErrors, type FormField, type RunFormState } from '../../utils/run-form';

/**
 * What every field and section of the New run form reads: the state, its
 * setter, the errors, an id prefix, and which collapsed sections are open.
 */
export interface FormCtx {
  state: RunFormState;
  set: <K extends FormField>(name: K, value: RunFormState[K]) => void;
  errors: FieldErrors;
  uid: string;
  open: Partial<Record<SectionId, boolean>>;
  toggle: (section: SectionId) => (e: SyntheticEvent<HTMLDetailsElement>) => void;
}

export const RunFormContext = createContext<FormCtx | null>(null);

export function useFormCtx(): FormCtx {
  const c = use(RunFormContext);
  if (!c) throw new Error('form fields need a RunFormContext');
  return c;
}

/** fieldId is the DOM id of a field's input, so an error summary can link to it. */
export function fieldId(uid: string, name: FormField): string {
  return `${uid}-${name}`;
}

/** a11y wires an input to its hint and error: aria-invalid and aria-describedby. */
function a11y(c: FormCtx, name: FormField, hint: boolean) {
  const id = fieldId(c.uid, name);
  const describedBy = [hint ? `${id}-hint` : '', c.errors[name] ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { id, name, 'aria-invalid': c.errors[name] ? true : undefined, 'aria-describedby': describedBy || undefined };
}

/** FieldNotes shows a field's hint and, when the API or the form found one, its error. */
export function FieldNotes({ name, hint }: { name: FormField; hint?: ReactNode }) {
  const c = useFormCtx();
  const id = fieldId(c.uid, name);
  return (
    <>
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
      {c.errors[name] && (
        <span id={`${id}-error`} className="field-error">
          {c.errors[name]}
        </span>
      )}
    </>
  );
}

type StringField = { [K in FormField]: RunFormState[K] extends string ? K : never }[FormField];
type BoolField = { [K in FormField]: RunFormState[K] extends boolean ? K : never }[FormField];

interface TextProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'name' | 'value' | 'onChange'> {
  name: StringField;
  label: string;
  hint?: ReactNode;
  className?: string;
}

export function TextField({ name, label, hint, className, ...rest }: TextProps) {
  const c = useFormCtx();
  return (
    <label className={`field ${className ?? ''}`}>
      {label}
      <input {...rest} {...a11y(c, name, !!hint)} value={c.state[name]} onChange={(e) => c.set(name, e.target.value)} />
      <FieldNotes name={name} hint={hint} />
    </label>
  );
}

/** AreaField is a textarea; `width` is how much of the form grid's row it takes. */
export function AreaField({
  name,
  label,
  hint,
  placeholder,
  rows = 3,
  width = 'wide',
}: {
  name: StringField;
  label: string;
  hint?: ReactNode;
  placeholder?: string;
  rows?: number;
  width?: 'wide' | 'half';
}) {
  const c = useFormCtx();
  return (
    <label className={`field ${width}`}>
      {label}
      <textarea {...a11y(c, name, !!hint)} rows={rows} placeholder={placeholder} spellCheck={false} value={c.state[name]} onChange={(e) => c.set(name, e.target.value)} />
      <FieldNotes name={name} hint={hint} />
    </label>
  );
}

export function CheckField({ name, label, hint }: { name: BoolField; label: string; hint?: string }) {
  const c = useFormCtx();
  const id = fieldId(c.uid, name);
  return (
    <span className="stack" style={{ gap: 2 }}>
      <label className="check">
        <input type="checkbox" {...a11y(c, name, false)} checked={c.state[name]} onChange={(e) => c.set(name, e.target.checked)} title={hint} />
        {label}
      </label>
      {c.errors[name] && (
        <span id={`${id}-error`} className="field-error">
          {c.errors[name]}
        </span>
      )}
    </span>
  );
}

export function SelectField<K extends StringField>({
  name,
  label,
  hint,
  options,
}: {
  name: K;
  label: string;
  hint?: ReactNode;
  options: readonly (readonly [RunFormState[K], string])[];
}) {
  const c = useFormCtx();
  return (
    <label className="field">
      {label}
      <select {...a11y(c, name, !!hint)} value={c.state[name]} onChange={(e) => c.set(name, e.target.value as RunFormState[K])}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
      <FieldNotes name={name} hint={hint} />
    </label>
  );
}

/**
 * SecretAreaField is the textarea of a secret (the client certificate and
 * key). A value the API stored sealed comes back as REDACTED: it is shown as
 * "set" with a Replace button, never as text, and Replace empties the input
 * for a new value (with a way back to the stored one).
 */
export function SecretAreaField({ name, label, hint, placeholder, rows = 3, width = 'half' }: Parameters<typeof AreaField>[0]) {
  const c = useFormCtx();
  const [stored] = useState(() => c.state[name] === redactedValue);
  if (c.state[name] !== redactedValue) {
    if (!stored) return <AreaField name={name} label={label} hint={hint} placeholder={placeholder} rows={rows} width={width} />;
    return (
      <div className={`${width} stack`} style={{ gap: 2 }}>
        <AreaField name={name} label={label} hint={hint} placeholder={placeholder} rows={rows} />
        <button type="button" className="link-button" onClick={() => c.set(name, redactedValue)}>
          Keep the stored {label.toLowerCase().replace(/ \(pem\)$/, '')}
        </button>
      </div>
    );
  }
  const id = fieldId(c.uid, name);
  return (
    <div className={`field ${width} secret`} role="group" aria-labelledby={`${id}-label`}>
      <span id={`${id}-label`}>{label}</span>
      <span className="secret-set">
        <span id={id} aria-describedby={c.errors[name] ? `${id}-error` : undefined}>
          Set (stored sealed, not shown)
        </span>{' '}
        <button type="button" onClick={() => c.set(name, '')} aria-label={`Replace ${label}`}>
          Replace
        </button>
      </span>
      <FieldNotes name={name} hint={hint} />
    </div>
  );
}

/** The view of a table row the generic Field needs. */
interface RowView {
  kind: 'text' | 'area' | 'select' | 'check' | 'radio';
  label: string;
  hint?: string;
  props?: InputProps;
  options?: readonly (readonly [string, string])[];
  secret?: boolean;
}

/**
 * Field draws one input from its row of the field table: its kind, label,
 * hint and attributes. `hint` replaces the table's (the URL's protocol note).
 */
export function Field({ name, hint }: { name: FormField; hint?: ReactNode }) {
  const r = fieldRow[name] as RowView;
  const { className, rows, width, required, ...attrs } = r.props ?? {};
  const shown = hint ?? r.hint;
  switch (r.kind) {
    case 'check':
      return <CheckField name={name as BoolField} label={r.label} hint={r.hint} />;
    case 'select':
      return <SelectField name={name as StringField} label={r.label} hint={shown} options={r.options ?? []} />;
    case 'area':
      if (r.secret) return <SecretAreaField name={name as StringField} label={r.label} hint={shown} placeholder={attrs.placeholder} rows={rows} width={width} />;
      return <AreaField name={name as StringField} label={r.label} hint={shown} placeholder={attrs.placeholder} rows={rows} width={width} />;
    default:
      return <TextField name={name as StringField} label={r.label} hint={shown} className={className} {...attrs} {...(required ? { required, 'aria-required': true } : {})} />;
  }
}

/** Collapsible is a collapsed section of the table: a <details> that opens on an error inside it. */
export function Collapsible({ section, children }: { section: SectionId; children: ReactNode }) {
  const c = useFormCtx();
  return (
    <details open={c.open[section]} onToggle={c.toggle(section)}>
      <summary>{runFormSections[section].title}</summary>
      <div className="form-grid">{children}</div>
    </details>
  );
}

/** Checks groups checkboxes under a caption, like "TLS" or "Options". */
export function Checks({ caption, names }: { caption: string; names: FormField[] }) {
  return (
    <div className="field">
      <span>{caption}</span>
      <div className="checks">
        {names.map((n) => (
          <Field key={n} name={n} />
        ))}
      </div>
    </div>
  );
}

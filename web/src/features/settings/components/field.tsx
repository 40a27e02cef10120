import type { InputHTMLAttributes, ReactNode } from 'react';

/**
 * Field is a labelled input of a settings form: its label, a hint, and the
 * error that names it, which the input's description links to (the error
 * first, then the hint).
 */
export function Field({ id, label, hint, error, ...input }: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'id'>) {
  const described = [error ? `${id}-err` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} {...input} aria-invalid={error ? true : undefined} aria-describedby={described || undefined} />
      {error && (
        <span className="field-error" id={`${id}-err`}>
          {error}
        </span>
      )}
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
    </div>
  );
}

import type { ReactNode } from 'react';
import { runFormFields, type SectionId } from '../../utils/run-form-fields';
import type { FormField, RunFormState } from '../../utils/run-form';
import { Checks, Field, FieldNotes, fieldId, useFormCtx } from './form-fields';

type Row = (typeof runFormFields)[number];

/** What SectionFields draws: one input, or a group of checkboxes under a caption. */
type Item = { row: Row } | { caption: string; names: FormField[] };

const shown = (row: Row, state: RunFormState) => !('shownWhen' in row) || row.shownWhen === undefined || row.shownWhen(state);

/** items lays a list of rows out, gathering neighbouring checkboxes of one group under its caption. */
function items(rows: readonly Row[]): Item[] {
  const out: Item[] = [];
  for (const row of rows) {
    const group = 'group' in row ? row.group : undefined;
    const last = out[out.length - 1];
    if (group === undefined) out.push({ row });
    else if (last && 'caption' in last && last.caption === group) last.names.push(row.name);
    else out.push({ caption: group, names: [row.name] });
  }
  return out;
}

/**
 * SectionFields draws a section's inputs from the field table, in its order:
 * the rows of that section that show for the current state, checkboxes
 * grouped under their caption, and each input nested in another (duration
 * and count in the length choice) inside that one's block. `hints` replaces a
 * row's hint (the URL's protocol note).
 */
export function SectionFields({ section, hints }: { section: SectionId; hints?: Partial<Record<FormField, ReactNode>> }) {
  const { state } = useFormCtx();
  const rows = runFormFields.filter((r) => r.section === section && !('nestedIn' in r && r.nestedIn) && shown(r, state));
  return (
    <>
      {items(rows).map((it) =>
        'caption' in it ? (
          <Checks key={it.caption} caption={it.caption} names={it.names} />
        ) : it.row.kind === 'radio' ? (
          <ChoiceField key={it.row.name} name={it.row.name} />
        ) : (
          <Field key={it.row.name} name={it.row.name} hint={hints?.[it.row.name]} />
        ),
      )}
    </>
  );
}

/**
 * ChoiceField is a radio row (the run's length): the segmented choice, then
 * the inputs nested in it that show for the choice, or the choice's note.
 */
function ChoiceField({ name }: { name: FormField }) {
  const { state, set, errors, uid } = useFormCtx();
  const row = runFormFields.find((r) => r.name === name)!;
  const value = state[name];
  const nested = runFormFields.filter((r) => 'nestedIn' in r && r.nestedIn === name && shown(r, state));
  const note = 'notes' in row ? row.notes?.[String(value)] : undefined;
  return (
    <div className="wide length-row">
      <div className="field" role="radiogroup" aria-labelledby={`${uid}-${name}-label`} aria-describedby={errors[name] ? `${fieldId(uid, name)}-error` : undefined}>
        <span id={`${uid}-${name}-label`}>{row.label}</span>
        <div className="segmented">
          {(row.options ?? []).map(([v, text]) => (
            <label key={String(v)}>
              <input type="radio" name={name} value={String(v)} checked={value === v} onChange={() => set(name, v as never)} />
              {text}
            </label>
          ))}
        </div>
        <FieldNotes name={name} />
      </div>
      {nested.map((r) => (
        <Field key={r.name} name={r.name} />
      ))}
      {note && <p className="muted until-stopped">{note}</p>}
    </div>
  );
}

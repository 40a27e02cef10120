import { fieldRow, runFormSections } from '../../../utils/run-form-fields';
import { Checks, Collapsible, Field, FieldNotes, fieldId, useFormCtx } from '../form-fields';

/** LoadSection: rate, connections, how long the run lasts, and its pacing and ramp. */
export function LoadSection() {
  const { state, set, errors, uid } = useFormCtx();
  const length = fieldRow.length;
  return (
    <fieldset>
      <legend>{runFormSections.load.title}</legend>
      <div className="form-grid">
        <Field name="qps" />
        <Field name="connections" />
        <div className="wide length-row">
          <div className="field" role="radiogroup" aria-labelledby={`${uid}-length-label`} aria-describedby={errors.length ? `${fieldId(uid, 'length')}-error` : undefined}>
            <span id={`${uid}-length-label`}>{length.label}</span>
            <div className="segmented">
              {(length.options ?? []).map(([v, text]) => (
                <label key={v}>
                  <input type="radio" name="length" value={v} checked={state.length === v} onChange={() => set('length', v)} />
                  {text}
                </label>
              ))}
            </div>
            <FieldNotes name="length" />
          </div>
          {state.length === 'duration' && <Field name="duration" />}
          {state.length === 'count' && <Field name="count" />}
          {state.length === 'until_stopped' && <p className="muted until-stopped">Runs until you press Stop on the run page.</p>}
        </div>
      </div>
      <Collapsible section="pacing">
        <Field name="pacing" />
        <Checks caption="Options" names={['jitter', 'uniform', 'no_catchup', 'abort_if_rate_not_held']} />
        <Field name="burst" />
        <Field name="ramp.from" />
        <Field name="ramp.to" />
        <Field name="ramp.over" />
      </Collapsible>
    </fieldset>
  );
}

import { runFormSections } from '../../../utils/run-form-fields';
import { Collapsible, Field } from '../form-fields';

/** LabelsSection: labels, thresholds, percentiles, and the spec fields without an input (JSON). */
export function LabelsSection() {
  return (
    <fieldset>
      <legend>{runFormSections.labels.title}</legend>
      <div className="form-grid">
        <Field name="labels" />
        <Field name="thresholds" />
        <Field name="percentiles" />
      </div>
      <Collapsible section="more">
        <Field name="more" />
      </Collapsible>
    </fieldset>
  );
}

import { runFormSections } from '../../../utils/run-form-fields';
import { Collapsible } from '../form-fields';
import { SectionFields } from '../section-fields';

/** LabelsSection: labels, thresholds, percentiles, and the spec fields without an input (JSON). */
export function LabelsSection() {
  return (
    <fieldset>
      <legend>{runFormSections.labels.title}</legend>
      <div className="form-grid">
        <SectionFields section="labels" />
      </div>
      <Collapsible section="more">
        <SectionFields section="more" />
      </Collapsible>
    </fieldset>
  );
}

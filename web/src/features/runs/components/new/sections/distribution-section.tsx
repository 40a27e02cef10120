import { runFormSections } from '../../../utils/run-form-fields';
import { Field } from '../form-fields';

/** DistributionSection: how many agents share the load, and which. */
export function DistributionSection() {
  return (
    <fieldset>
      <legend>{runFormSections.distribution.title}</legend>
      <div className="form-grid">
        <Field name="agents.count" />
        <Field name="agents.selector" />
      </div>
    </fieldset>
  );
}

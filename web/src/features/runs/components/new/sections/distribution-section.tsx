import { runFormSections } from '../../../utils/run-form-fields';
import { SectionFields } from '../section-fields';

/** DistributionSection: how many agents share the load, and which. */
export function DistributionSection() {
  return (
    <fieldset>
      <legend>{runFormSections.distribution.title}</legend>
      <div className="form-grid">
        <SectionFields section="distribution" />
      </div>
    </fieldset>
  );
}

import { runFormSections } from '../../../utils/run-form-fields';
import { Collapsible } from '../form-fields';
import { SectionFields } from '../section-fields';

/** LoadSection: rate, connections, how long the run lasts, and its pacing and ramp. */
export function LoadSection() {
  return (
    <fieldset>
      <legend>{runFormSections.load.title}</legend>
      <div className="form-grid">
        <SectionFields section="load" />
      </div>
      <Collapsible section="pacing">
        <SectionFields section="pacing" />
      </Collapsible>
    </fieldset>
  );
}

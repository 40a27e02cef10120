import { runFormSections } from '../../../utils/run-form-fields';
import { Collapsible } from '../form-fields';
import { SectionFields } from '../section-fields';

/** RequestSection: method and headers, then body, timeout, TLS and connection options. */
export function RequestSection() {
  return (
    <fieldset>
      <legend>{runFormSections.request.title}</legend>
      <div className="form-grid">
        <SectionFields section="request" />
      </div>
      <Collapsible section="requestMore">
        <SectionFields section="requestMore" />
      </Collapsible>
    </fieldset>
  );
}

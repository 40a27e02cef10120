import { runFormSections } from '../../../utils/run-form-fields';
import { Collapsible } from '../form-fields';
import { SectionFields } from '../section-fields';
import { TlsSection } from './tls-section';

/** RequestSection: method and headers, then body, timeout and connection options, then TLS. */
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
      <TlsSection />
    </fieldset>
  );
}

import { runFormSections } from '../../../utils/run-form-fields';
import { Checks, Collapsible, Field } from '../form-fields';

/** RequestSection: method and headers, then body, timeout, TLS and connection options. */
export function RequestSection() {
  return (
    <fieldset>
      <legend>{runFormSections.request.title}</legend>
      <div className="form-grid">
        <Field name="method" />
        <Field name="headers" />
      </div>
      <Collapsible section="requestMore">
        <Field name="payload" />
        <Field name="content_type" />
        <Field name="timeout" />
        <Field name="abort_on" />
        <Checks caption="TLS" names={['h2', 'h3', 'insecure']} />
        <Checks caption="HTTP" names={['http10', 'compression', 'follow_redirects', 'prefetch']} />
        <Field name="max_requests_per_connection" />
        <Field name="unix_socket" />
      </Collapsible>
    </fieldset>
  );
}

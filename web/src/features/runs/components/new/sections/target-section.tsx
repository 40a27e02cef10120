import { protocolOf, protocolText } from '../../../utils/run-form';
import { runFormSections } from '../../../utils/run-form-fields';
import { Collapsible, useFormCtx } from '../form-fields';
import { SectionFields } from '../section-fields';

/** TargetSection: the URL (with the protocol it names), the run's name, and the URL list. */
export function TargetSection() {
  const { state, errors } = useFormCtx();
  const protocol = protocolOf(state.url);
  const hint =
    protocol === undefined ? (
      'http, https, h2c, grpc, grpcs, tcp or udp'
    ) : protocol === 'unknown' ? (
      // The API's message says the same once it has answered.
      !errors.url && <span className="protocol warn">Unknown scheme; use http, https, h2c, grpc, grpcs, tcp or udp</span>
    ) : (
      <span className="protocol">Protocol: {protocolText[protocol]}</span>
    );
  return (
    <fieldset>
      <legend>{runFormSections.target.title}</legend>
      <div className="form-grid">
        <SectionFields section="target" hints={{ url: hint }} />
      </div>
      <Collapsible section="urls">
        <SectionFields section="urls" />
      </Collapsible>
    </fieldset>
  );
}

import { isGrpc } from '../../../utils/run-form';
import { runFormSections } from '../../../utils/run-form-fields';
import { useFormCtx } from '../form-fields';
import { SectionFields } from '../section-fields';

/** GrpcSection shows for grpc and grpcs URLs: the mode, and the one input that mode uses. */
export function GrpcSection() {
  const { state } = useFormCtx();
  if (!isGrpc(state.url)) return null;
  return (
    <fieldset>
      <legend>{runFormSections.grpc.title}</legend>
      <div className="form-grid">
        <SectionFields section="grpc" />
      </div>
    </fieldset>
  );
}

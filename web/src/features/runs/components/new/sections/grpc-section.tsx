import { isGrpc } from '../../../utils/run-form';
import { runFormSections } from '../../../utils/run-form-fields';
import { Field, useFormCtx } from '../form-fields';

/** GrpcSection shows for grpc and grpcs URLs: the mode, and the one input that mode uses. */
export function GrpcSection() {
  const { state } = useFormCtx();
  if (!isGrpc(state.url)) return null;
  const mode = state['grpc.mode'];
  return (
    <fieldset>
      <legend>{runFormSections.grpc.title}</legend>
      <div className="form-grid">
        <Field name="grpc.mode" />
        <Field name={mode === 'ping' ? 'grpc.ping_delay' : mode === 'method' ? 'grpc.method' : 'grpc.service'} />
        <Field name="grpc.streams" />
      </div>
    </fieldset>
  );
}

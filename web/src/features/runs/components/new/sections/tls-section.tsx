import { runFormSections } from '../../../utils/run-form-fields';
import { useFormCtx } from '../form-fields';
import { SectionFields } from '../section-fields';

/**
 * TlsSection: verification (on unless -k, with a warning when off), the CA,
 * the client certificate and key (secrets: a stored one shows as set), SNI,
 * ALPN where the protocol lets it be chosen, the minimum version and
 * resumption. Collapsed, like the other advanced options; its summary says
 * when verification is off. It sits in the Request fieldset, after the
 * body and connection options.
 */
export function TlsSection() {
  const c = useFormCtx();
  return (
    <details open={c.open.tls} onToggle={c.toggle('tls')}>
      <summary>
        {runFormSections.tls.title}: certificates, SNI, ALPN, versions
        {c.state.insecure && <span className="protocol warn"> (verification off)</span>}
      </summary>
      <div className="form-grid">
        {c.state.insecure && (
          <p className="insecure-warning wide" role="note">
            Certificate verification is off (-k): any server certificate is accepted, so a machine in the path can stand in for the target. Use a
            CA certificate below instead where you can.
          </p>
        )}
        <SectionFields section="tls" />
      </div>
    </details>
  );
}

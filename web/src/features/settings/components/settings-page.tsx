import { useId } from 'react';
import { ErrorState, Loading } from '@/components/ui/states';
import { useProject } from '@/lib/project';
import { can, type Role } from '@/lib/roles';
import { useProjectSettings } from '../api/get-project';
import { AgentPoolsForm } from './agent-pools-form';
import { AllowListForm } from './allow-list-form';
import { LimitsForm } from './limits-form';
import { OrgPolicyForm } from './org-policy-form';
import { PublicResultsForm } from './public-results-form';
import { RemoteWriteSection } from './remote-write-section';
import { RetentionForm } from './retention-form';
import './settings.css';

const sections = [
  ['target-policy', 'Target policy'],
  ['limits', 'Limits'],
  ['retention', 'Retention'],
  ['remote-write', 'Remote write'],
  ['agent-pools', 'Agent pools'],
  ['public-results', 'Public results'],
] as const;

/**
 * SettingsPage shows the current project's settings. role is the caller's
 * role there (project admins edit the project's own settings); orgAdmin
 * says the caller acts as an org admin, who also edits the organisation's
 * target policy and the project's agent pools. Everyone else reads.
 */
export function SettingsPage({ role, orgAdmin = false }: { role: Role | undefined; orgAdmin?: boolean }) {
  const slug = useProject();
  const project = useProjectSettings(slug);
  const id = useId();
  if (project.isPending) return <Loading />;
  if (project.error) return <ErrorState error={project.error} retry={() => project.refetch()} />;
  const p = project.data;
  const admin = can(role, 'admin');
  return (
    <div className="stack settings-page">
      <h1 style={{ margin: 0 }}>Settings</h1>
      <p className="muted" style={{ margin: 0 }}>
        Project <strong>{p.name}</strong> <span className="mono">({p.slug})</span>
      </p>
      {!admin && (
        <p className="muted" role="note" style={{ margin: 0 }}>
          Only admins of this project can change its settings.
        </p>
      )}
      <nav aria-label="Settings sections" className="settings-toc">
        {sections.map(([anchor, text]) => (
          <a key={anchor} href={`#${anchor}`}>
            {text}
          </a>
        ))}
      </nav>
      <section className="card stack" aria-labelledby={`${id}-policy`} id="target-policy">
        <h2 id={`${id}-policy`}>Target policy</h2>
        <p className="hint" style={{ margin: 0 }}>
          The organisation&apos;s policy is the outer bound; this project&apos;s allow list narrows it. A run&apos;s target, a sync
          source and the remote-write endpoint must pass both, and never reach the control plane itself.
        </p>
        <div className="policy-grid">
          <OrgPolicyForm readable={orgAdmin || admin} editable={orgAdmin} />
          <AllowListForm key={`allow-${p.id}`} project={p} editable={admin} />
        </div>
      </section>
      <LimitsForm key={`limits-${p.id}`} project={p} editable={admin} />
      <RetentionForm key={`retention-${p.id}`} project={p} editable={admin} />
      <RemoteWriteSection key={`rw-${p.id}`} slug={p.slug} admin={admin} />
      <AgentPoolsForm key={`pools-${p.id}`} slug={p.slug} editable={orgAdmin} />
      <PublicResultsForm key={`public-${p.id}`} project={p} editable={admin} />
    </div>
  );
}

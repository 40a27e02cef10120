import { useState } from 'react';
import { Empty, ErrorState, Loading } from '@/components/ui/states';
import type { Schemas } from '@/lib/api-client';
import { formatTime } from '@/lib/format';
import { useProject } from '@/lib/project';
import { useReadOnly } from '@/lib/read-only';
import { can, type Role } from '@/lib/roles';
import { useActivateEchoProfile } from '../api/activate-echo-profile';
import { useDeleteEchoProfile } from '../api/delete-echo-profile';
import { useEchoProfiles } from '../api/list-echo-profiles';
import { useEchoServers } from '../api/list-echo-servers';
import { CreateProfileForm } from './create-profile-form';
import { EditProfileForm } from './edit-profile-form';
import { EchoServersTable } from './echo-servers-table';
import { problemText } from './problem-text';

/**
 * EchoProfilesPage lists the project's managed echo fault profiles and its
 * registered echoes; role is the caller's there. Runners activate a profile
 * on one echo or all of them, admins add, edit and delete profiles.
 */
export function EchoProfilesPage({ role }: { role: Role | undefined }) {
  const project = useProject();
  const readOnly = useReadOnly();
  const profiles = useEchoProfiles(project);
  const admin = !readOnly && can(role, 'admin');
  const runner = !readOnly && can(role, 'runner');
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Echo profiles</h1>
      <p className="muted" style={{ margin: 0 }}>
        Fault profiles for the managed barrage-echo servers: the default parameters an echo applies to every request.
      </p>
      {profiles.isPending && <Loading />}
      {profiles.error && <ErrorState error={profiles.error} retry={() => profiles.refetch()} />}
      {profiles.data && <ProfilesTable project={project} items={profiles.data.items} admin={admin} runner={runner} />}
      {admin && <CreateProfileForm project={project} />}
      <h2 style={{ margin: 0 }}>Echo servers</h2>
      <EchoServersTable project={project} />
    </div>
  );
}

interface TableProps {
  project: string;
  items: Schemas['EchoProfile'][];
  admin: boolean;
  runner: boolean;
}

/**
 * ProfilesTable lists the profiles with an Activate button (runners), Edit
 * and Delete (admins); Edit opens the profile's form under the table.
 */
function ProfilesTable({ project, items, admin, runner }: TableProps) {
  const [echo, setEcho] = useState('');
  const [editing, setEditing] = useState<string>();
  const servers = useEchoServers(project);
  const activate = useActivateEchoProfile();
  const remove = useDeleteEchoProfile();
  const busy = activate.isPending || remove.isPending;
  const failed = activate.error ?? remove.error;
  if (items.length === 0) return <Empty>No echo profile yet.</Empty>;
  const onActivate = (p: Schemas['EchoProfile']) => {
    remove.reset();
    activate.mutate({ project, id: p.id, echo });
  };
  const onDelete = (p: Schemas['EchoProfile']) => {
    activate.reset();
    remove.mutate({ project, id: p.id });
  };
  const activated = activate.data && activate.variables;
  const edited = items.find((p) => p.id === editing);
  return (
    <>
      {runner && (
        <label className="field" style={{ maxWidth: 320 }}>
          Activate on
          <select value={echo} onChange={(e) => setEcho(e.target.value)}>
            <option value="">every echo of the project</option>
            {servers.data?.items.map((s) => (
              <option key={s.name} value={s.name}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {failed && (
        <div className="field-error" role="alert">
          {problemText(failed)}
        </div>
      )}
      {activated && (
        <div className="muted" role="status">
          Activated {items.find((p) => p.id === activated.id)?.name ?? 'the profile'} on {activate.data.echoes.join(', ')}
        </div>
      )}
      <div className="table-wrap">
        <table aria-label="Echo profiles">
          <thead>
            <tr>
              <th>Name</th>
              <th>Content</th>
              <th>Updated</th>
              {(runner || admin) && (
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {items.map((p) => (
              <tr key={p.id}>
                <td>{p.name}</td>
                <td className="mono">{p.content || <span className="muted">no faults</span>}</td>
                <td>{formatTime(p.updated_at)}</td>
                {(runner || admin) && (
                  <td className="actions">
                    {runner && (
                      <button disabled={busy} onClick={() => onActivate(p)} aria-label={`Activate ${p.name}`}>
                        Activate
                      </button>
                    )}
                    {admin && (
                      <button className="link" onClick={() => setEditing(p.id)} aria-label={`Edit ${p.name}`}>
                        Edit
                      </button>
                    )}
                    {admin && (
                      <button className="link" disabled={busy} onClick={() => onDelete(p)} aria-label={`Delete ${p.name}`}>
                        Delete
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {admin && edited && <EditProfileForm key={edited.id} project={project} profile={edited} onDone={() => setEditing(undefined)} />}
    </>
  );
}

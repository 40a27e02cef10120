import { useParams } from 'react-router';
import { roleInProject, useMe } from '@/features/auth/api/get-me';
import { RunView } from '@/features/runs/components/detail/run-view';

export function Component() {
  const { runId = '' } = useParams();
  const me = useMe();
  // A new run id is a new page: fresh stream, fresh toggles.
  return <RunView key={runId} runId={runId} currentUserId={me.data?.user.id} roleOf={(id) => roleInProject(me.data, id)} />;
}

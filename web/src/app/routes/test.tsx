import { useNavigate, useParams, useSearchParams } from 'react-router';
import { TestPage } from '@/features/tests/components/test-page';

export function Component() {
  const { testId = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  return (
    <TestPage
      key={testId}
      testId={testId}
      editing={params.has('edit')}
      onEditingChange={(on) => navigate(on ? `/tests/${testId}?edit=1` : `/tests/${testId}`)}
      onRunStarted={(runId) => navigate(`/runs/${runId}`)}
      onDeleted={() => navigate('/tests', { replace: true })}
    />
  );
}

import { Link, useNavigate, useSearchParams } from 'react-router';
import { NewTest } from '@/features/tests/components/new-test';
import { TestsTable } from '@/features/tests/components/tests-table';
import { useReadOnly } from '@/lib/read-only';

export function Component() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const readOnly = useReadOnly();
  const creating = params.has('new') && !readOnly;
  return (
    <div className="stack">
      <div className="spread">
        <h1 style={{ margin: 0 }}>Tests</h1>
        {!creating && !readOnly && (
          <Link className="button primary" to="/tests?new=1">
            New test
          </Link>
        )}
      </div>
      {creating && <NewTest onCreated={(id) => navigate(`/tests/${id}`)} onCancel={() => navigate('/tests')} />}
      <TestsTable />
    </div>
  );
}

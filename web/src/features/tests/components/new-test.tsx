import { useProject } from '@/lib/project';
import { useCreateTest } from '../api/create-test';
import { newTestValues } from '../utils/test-form';
import { TestForm } from './test-form';

/** NewTest stores a new test in the current project. */
export function NewTest({ onCreated, onCancel }: { onCreated: (testId: string) => void; onCancel: () => void }) {
  const project = useProject();
  const create = useCreateTest();
  return (
    <TestForm
      title="New test"
      initial={newTestValues}
      submitLabel="Create test"
      pending={create.isPending}
      error={create.error}
      onSubmit={(body) => create.mutate({ ...body, project }, { onSuccess: (t) => onCreated(t.id) })}
      onCancel={onCancel}
    />
  );
}

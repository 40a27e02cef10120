import { useId, useState, type FormEvent } from 'react';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useUpdateProject } from '../api/update-project';
import {
  maxRetentionDays, retentionDraftOf, retentionErrorsOf, retentionNames, retentionText, toRetentionUpdate,
  type RetentionDraft, type RetentionErrors, type RetentionName,
} from '../utils/retention-form';
import { Field } from './field';
import { generalError } from './problem';
import { SaveActions } from './save-actions';

const labels: Record<RetentionName, { label: string; hint: string }> = {
  interval_retention_days: {
    label: 'Keep per-second data (days)',
    hint: "A run's seconds and shard snapshots are dropped this many days after it was created; its summary and merged result stay.",
  },
  run_retention_days: { label: 'Keep runs (days)', hint: 'Whole runs are dropped this many days after they were created.' },
};

/**
 * RetentionForm shows how long the project keeps its runs' data; admins
 * edit it. A blank setting keeps that data forever.
 */
export function RetentionForm({ project: p, editable }: { project: Schemas['Project']; editable: boolean }) {
  const [draft, setDraft] = useState<RetentionDraft>(() => retentionDraftOf(p.retention));
  const [local, setLocal] = useState<RetentionErrors>({});
  const [saved, setSaved] = useState(false);
  const update = useUpdateProject();
  const id = useId();

  const api = update.error instanceof ApiError ? retentionErrorsOf(update.error.problem.errors) : undefined;
  const errors: RetentionErrors = { ...api?.fields, ...local };
  const general = generalError(update.error, Object.keys(api?.fields ?? {}).length > 0, api?.other ?? []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    const read = toRetentionUpdate(draft);
    if (!read.ok) {
      setLocal(read.errors);
      return;
    }
    setLocal({});
    update.mutate(
      { slug: p.slug, body: { retention: read.body } },
      {
        onSuccess: (stored) => {
          setDraft(retentionDraftOf(stored.retention));
          setSaved(true);
        },
      },
    );
  };

  return (
    <form className="card stack settings-form" onSubmit={submit} noValidate aria-label="Retention" id="retention">
      <h2>Retention</h2>
      <p className="hint" style={{ margin: 0 }}>
        How long this project keeps its runs&apos; data, counted from each run&apos;s creation. Pinned runs keep everything, and a
        run that is a baseline is not dropped.
      </p>
      {!editable ? (
        <dl className="limits-list">
          {retentionNames.map((n) => (
            <div key={n}>
              <dt>{labels[n].label.replace(' (days)', '')}</dt>
              <dd data-testid={`retention-${n}`}>{retentionText(p.retention[n])}</dd>
            </div>
          ))}
        </dl>
      ) : (
        <div className="limits-grid">
          {retentionNames.map((n) => (
            <Field key={n} id={`${id}-${n}`} label={labels[n].label} inputMode="numeric" value={draft[n]}
              placeholder="forever" error={errors[n]}
              hint={`${labels[n].hint} Blank keeps it forever; at most ${maxRetentionDays}.`}
              onChange={(e) => setDraft((d) => ({ ...d, [n]: e.target.value }))} />
          ))}
        </div>
      )}
      <SaveActions general={general} editable={editable} pending={update.isPending} saved={saved} label="Save retention" />
    </form>
  );
}

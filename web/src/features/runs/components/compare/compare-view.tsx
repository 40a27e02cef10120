import { useState } from 'react';
import { ErrorState, Loading } from '@/components/ui/states';
import { ApiError, type Schemas } from '@/lib/api-client';
import { useCompareRuns } from '../../api/compare-runs';
import { withoutId } from '../../utils/ids';
import { hasResult, legendNames } from '../../utils/compared-runs';
import { ChangeSummary } from './change-summary';
import { CompareTable } from './compare-table';
import { PhasesCompare } from './phases-compare';
import { RunPicker } from './run-picker';
import { SpecDiff } from './spec-diff';
import { SpectrumCompare } from './spectrum-compare';
import { StepsCompare } from './steps-compare';

type Props = { ids: string[]; onIdsChange: (ids: string[]) => void };

/** CompareView compares the runs named in the URL, or helps pick them when fewer than 2 are. */
export function CompareView({ ids, onIdsChange }: Props) {
  if (ids.length < 2) {
    return (
      <section className="stack">
        <h2 style={{ margin: 0 }}>Pick runs to compare</h2>
        <RunPicker key={ids.join(',')} initial={ids} onCompare={onIdsChange} />
      </section>
    );
  }
  return <Comparison ids={ids} onIdsChange={onIdsChange} />;
}

function Comparison({ ids, onIdsChange }: Props) {
  const cmp = useCompareRuns(ids);
  const [adding, setAdding] = useState(false);
  const remove = (id: string) => onIdsChange(withoutId(ids, id));

  if (cmp.isPending) return <Loading label="Comparing…" />;
  if (cmp.error) return <CompareError error={cmp.error} ids={ids} onRemove={remove} retry={() => cmp.refetch()} />;

  const runs = cmp.data.items;
  const names = legendNames(runs);
  const missing = runs.filter((r) => !hasResult(r));

  // One layout for any number of runs: what differs, the largest changes,
  // every figure with its change and interval, the percentile spectra
  // overlaid, then the request phases and a scenario's steps.
  return (
    <div className="stack" data-testid="compare-layout">
      {missing.length > 0 && (
        <p className="muted" role="status" style={{ margin: 0 }}>
          {missing.length === 1 ? '1 run has' : `${missing.length} runs have`} no result yet ({missing.map((r) => r.status).join(', ')}):
          its figures appear when it ends.
        </p>
      )}
      <SpecDiff runs={runs} names={names} />
      <ChangeSummary runs={runs} names={names} />
      <CompareTable runs={runs} names={names} onRemove={remove} />
      <SpectrumCompare runs={runs} names={names} />
      <PhasesCompare runs={runs} names={names} />
      <StepsCompare runs={runs} names={names} />
      <div>
        <button type="button" onClick={() => setAdding((a) => !a)} aria-expanded={adding}>
          {adding ? 'Hide the run list' : 'Add or reorder runs'}
        </button>
      </div>
      {adding && <RunPicker initial={ids} onCompare={(next) => { setAdding(false); onIdsChange(next); }} />}
    </div>
  );
}

/**
 * CompareError shows why the comparison failed. An unknown id (404) or a
 * malformed one (422) is named, with a way to drop it from the URL.
 */
function CompareError({ error, ids, onRemove, retry }: {
  error: unknown;
  ids: string[];
  onRemove: (id: string) => void;
  retry: () => void;
}) {
  if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 422)) {
    return <ErrorState error={error} retry={retry} />;
  }
  const text = [error.problem.detail, ...(error.problem.errors ?? []).map((e: Schemas['FieldError']) => e.message)].join(' ');
  const culprit = ids.find((id) => text.includes(id));
  return (
    <div className="state error" role="alert">
      <strong>
        {error.status === 404 ? 'Run not found: ' : 'Not a run id: '}
        <span className="mono">{culprit ?? ids.join(', ')}</span>
      </strong>
      <div>
        {error.status === 404
          ? 'It does not exist, or it is in a project you cannot see.'
          : (error.fieldErrors().ids ?? error.problem.detail)}
      </div>
      {culprit && (
        <div style={{ marginTop: 8 }}>
          <button type="button" onClick={() => onRemove(culprit)}>
            Remove it from the comparison
          </button>
        </div>
      )}
    </div>
  );
}

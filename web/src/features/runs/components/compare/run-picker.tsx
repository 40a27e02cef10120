import { useId, useState } from 'react';
import { Link } from 'react-router';
import { Labels } from '@/components/ui/labels';
import { Empty, ErrorState, Loading } from '@/components/ui/states';
import { formatAgo, formatDuration, formatRate, formatTime } from '@/lib/format';
import { useProject } from '@/lib/project';
import { runName } from '@/lib/run-name';
import { useCompletedRuns } from '../../api/list-runs';
import { maxCompare } from '../../utils/ids';
import { matchesPick, previousOfTest } from '../../utils/run-filters';
import './compare.css';

type Props = {
  /** Runs already chosen (from the URL); they stay chosen and first. */
  initial: string[];
  onCompare: (ids: string[]) => void;
};

/**
 * RunPicker offers the project's recent completed runs to tick and compare,
 * narrowed by a search over their names, targets, ids and labels; a ticked
 * run stays listed whatever the search. When the first ticked run ran a
 * stored test, one button puts the test's run before it first, as the baseline.
 */
export function RunPicker({ initial, onCompare }: Props) {
  const project = useProject();
  const runs = useCompletedRuns(project);
  const [chosen, setChosen] = useState<string[]>(initial);
  const [q, setQ] = useState('');
  const uid = useId();

  const toggle = (id: string, on: boolean) =>
    setChosen((c) => (on ? (c.includes(id) ? c : [...c, id]) : c.filter((x) => x !== id)));

  if (runs.isPending) return <Loading />;
  if (runs.error) return <ErrorState error={runs.error} retry={() => runs.refetch()} />;
  const items = runs.data.items;
  if (items.length === 0) {
    return (
      <Empty>
        No completed run in this project yet. <Link to="/runs/new">Start one</Link>, then come back to compare.
      </Empty>
    );
  }
  const full = chosen.length >= maxCompare;
  const matching = items.filter((r) => matchesPick(r, q));
  const shown = items.filter((r) => chosen.includes(r.id) || matching.includes(r));
  const previous = full ? undefined : previousOfTest(items, chosen);
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        onCompare(chosen);
      }}
    >
      <div className="spread">
        <p className="muted" style={{ margin: 0 }}>
          Tick 2 to {maxCompare} runs, in the order to compare them; the first is the baseline.
        </p>
        <button type="submit" className="primary" disabled={chosen.length < 2}>
          {chosen.length >= 2 ? `Compare ${chosen.length} runs` : 'Compare'}
        </button>
      </div>
      {previous && (
        <div>
          <button type="button" data-testid="add-previous" onClick={() => setChosen((c) => [previous.id, ...c])}>
            Add the previous run of its test as the baseline: {runName(previous)}
          </button>
        </div>
      )}
      <div className="row">
        <label htmlFor={`${uid}-q`}>Search runs</label>
        <input
          id={`${uid}-q`}
          type="search"
          value={q}
          placeholder="name, target, id or key=value"
          aria-controls={`${uid}-list`}
          onChange={(e) => setQ(e.target.value)}
        />
        <span className="muted" role="status" data-testid="picker-count">
          {matching.length === items.length ? `${items.length} runs` : `${matching.length} of ${items.length} runs`}
        </span>
      </div>
      <div className="table-wrap">
        {matching.length === 0 && <p className="muted" style={{ margin: 8 }}>No recent completed run matches “{q}”.</p>}
        <ul className="picker-list" aria-label="Recent completed runs" id={`${uid}-list`}>
          {shown.map((r) => {
            const at = chosen.indexOf(r.id);
            return (
              <li key={r.id}>
                <label>
                  <input
                    type="checkbox"
                    checked={at >= 0}
                    disabled={at < 0 && full}
                    onChange={(e) => toggle(r.id, e.target.checked)}
                  />
                  <span>
                    <strong>{runName(r)}</strong>
                    {at >= 0 && <span className="badge info" style={{ marginLeft: 6 }}>#{at + 1}</span>}
                    <br />
                    <span className="muted" style={{ fontSize: '0.85rem' }} title={formatTime(r.ended_at ?? r.created_at)}>
                      {formatAgo(r.ended_at ?? r.created_at)} · <span className="mono">{r.target}</span>
                    </span>{' '}
                    <Labels labels={r.labels} />
                  </span>
                  <span className="figures num">
                    {formatRate(r.summary?.qps)} qps · p99 {formatDuration(r.summary?.p99_us)}
                  </span>
                </label>
              </li>
            );
          })}
        </ul>
      </div>
    </form>
  );
}

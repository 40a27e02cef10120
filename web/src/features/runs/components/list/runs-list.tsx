import { useMemo, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Empty, ErrorState, Loading } from '@/components/ui/states';
import { useProject } from '@/lib/project';
import { anyActive } from '@/lib/run-status';
import { useNow } from '@/lib/use-now';
import { useRuns } from '../../api/list-runs';
import { useTests } from '../../api/list-tests';
import { filtersFromParams, filtersToParams, hasFilters, matchesText, type RunFilters } from '../../utils/run-filters';
import { ImportFortio } from './import-fortio';
import { RunsFilters } from './runs-filters';
import { RunsTable } from './runs-table';
import { useReadOnly } from '@/lib/read-only';

/** The compare page takes 2 to 20 runs. */
const compareMin = 2;
const compareMax = 20;

/** RunsList is the runs page: filters kept in the URL, the table, paging and Compare. */
export function RunsList() {
  const readOnly = useReadOnly();
  const project = useProject();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => filtersFromParams(params), [params]);
  const runs = useRuns({ project, status: filters.status, test: filters.test, labels: filters.labels });
  const tests = useTests(project);
  const [selected, setSelected] = useState<string[]>([]);

  const loaded = useMemo(() => runs.data?.pages.flatMap((p) => p.items) ?? [], [runs.data]);
  const active = anyActive(loaded);
  // Ticks only while a run is live; otherwise the time of the last answer keeps "ago" honest.
  const now = Math.max(useNow(1_000, active), runs.dataUpdatedAt);
  const rows = useMemo(() => loaded.filter((r) => matchesText(r, filters.q)), [loaded, filters.q]);
  const testNames = useMemo(() => new Map((tests.data?.items ?? []).map((t) => [t.id, t.name])), [tests.data]);

  const setFilters = (f: RunFilters) => setParams(filtersToParams(f), { replace: true });
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const canCompare = selected.length >= compareMin && selected.length <= compareMax;

  return (
    <div className="stack">
      <div className="spread">
        <h1 style={{ margin: 0 }}>Runs</h1>
        <div className="row">
          {selected.length > 0 && (
            <button type="button" className="link" onClick={() => setSelected([])}>
              Clear selection
            </button>
          )}
          <button
            type="button"
            disabled={!canCompare}
            title={canCompare ? undefined : `Select ${compareMin} to ${compareMax} runs to compare`}
            onClick={() => navigate(`/compare?ids=${selected.join(',')}`)}
          >
            Compare ({selected.length})
          </button>
          {!readOnly && <ImportFortio />}
          {!readOnly && (
            <Link to="/runs/new" className="button primary">
              New run
            </Link>
          )}
        </div>
      </div>
      <RunsFilters filters={filters} onChange={setFilters} tests={tests.data?.items ?? []} />
      {runs.isPending ? (
        <Loading label="Loading runs…" />
      ) : runs.error && !runs.data ? (
        <ErrorState error={runs.error} retry={() => runs.refetch()} />
      ) : loaded.length === 0 ? (
        hasFilters(filters) ? (
          <Empty>
            No run matches these filters.{' '}
            <button type="button" className="link" onClick={() => setFilters({ status: [], test: '', labels: [], q: '' })}>
              Clear filters
            </button>
          </Empty>
        ) : (
          <Empty>
            No runs yet.{!readOnly && (<> <Link to="/runs/new">Start a new run</Link>.</>)}
          </Empty>
        )
      ) : (
        <>
          {rows.length === 0 ? (
            <Empty>
              None of the {loaded.length} loaded runs matches “{filters.q}”{runs.hasNextPage ? '; load more to search further' : ''}.
            </Empty>
          ) : (
            <RunsTable runs={rows} testNames={testNames} selected={selected} onToggle={toggle} now={now} />
          )}
          <div className="spread">
            <span className="muted" aria-live="polite">
              {rows.length === loaded.length ? `${loaded.length} runs` : `${rows.length} of ${loaded.length} loaded runs`}
              {active && ' · refreshing every 2 s'}
            </span>
            {runs.hasNextPage && (
              <button type="button" onClick={() => runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
                {runs.isFetchingNextPage ? 'Loading…' : 'Load more'}
              </button>
            )}
          </div>
          {runs.error && <ErrorState error={runs.error} retry={() => runs.refetch()} />}
        </>
      )}
    </div>
  );
}

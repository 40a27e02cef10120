import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { save } from '@/components/ui/chart-export';
import { runIntervalsQuery } from '../../api/list-run-intervals';
import { intervalsCsv } from '../../utils/intervals-csv';

/**
 * IntervalsCsvButton downloads the run's per-second series as CSV
 * (utils/intervals-csv.ts), from the seconds the page already read or, when
 * it has not, from GET /runs/{run}/intervals.
 */
export function IntervalsCsvButton({ runId }: { runId: string }) {
  const qc = useQueryClient();
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const download = async () => {
    setState({ busy: true });
    try {
      const seconds = await qc.ensureQueryData(runIntervalsQuery(runId));
      save(new Blob([intervalsCsv(seconds)], { type: 'text/csv' }), `barrage-${runId}-seconds.csv`);
      setState({ busy: false });
    } catch (e) {
      setState({ busy: false, error: e instanceof Error ? e.message : String(e) });
    }
  };
  return (
    <>
      <button type="button" className="link" data-testid="download-seconds-csv" disabled={state.busy} onClick={() => void download()}>
        {state.busy ? 'Preparing CSV…' : 'CSV (per second)'}
      </button>
      {state.error && (
        <span className="field-error" role="alert">
          Could not read the seconds: {state.error}
        </span>
      )}
    </>
  );
}

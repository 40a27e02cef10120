import { useQueries } from '@tanstack/react-query';
import { ErrorState, Loading } from '@/components/ui/states';
import type { Schemas } from '@/lib/api-client';
import { runResultQuery } from '../../api/get-run-result';
import { hasResult, runColor } from '../../utils/compared-runs';
import { spectrumPoints } from '../../utils/spectrum';
import { SpectrumChart, spectrumKinds, type SpectrumSeries } from '../spectrum/spectrum-chart';
import { useViewParam } from '../../hooks/use-view-param';
import { viewParams } from '../../utils/view-params';

type Props = { runs: Schemas['ComparedRun'][]; names: string[] };

/**
 * SpectrumCompare overlays the compared runs' percentile spectra, each in
 * its run's hue (runColor, as in the table), from each run's result, which
 * holds all three latencies where the comparison holds one. The toggle
 * starts on the reference's latency kind and is kept in the URL.
 */
export function SpectrumCompare({ runs, names }: Props) {
  const results = useQueries({ queries: runs.map((r) => runResultQuery(r.id, hasResult(r))) });
  const [kind, setKind] = useViewParam(viewParams.spectrum, spectrumKinds, runs[0]?.latency_kind ?? 'response');

  const pending = results.some((q, i) => hasResult(runs[i]!) && q.isPending);
  const failed = results.find((q) => q.error);
  if (failed) return <ErrorState error={failed.error} retry={() => failed.refetch()} />;
  if (pending) return <Loading label="Loading the runs' percentiles…" />;

  const data = results.map((q) => q.data ?? undefined);
  const kinds = spectrumKinds.filter((k) => data.some((res) => res?.[k] !== undefined));
  const shown = kinds.includes(kind) ? kind : (kinds[0] ?? 'service');
  const series: SpectrumSeries[] = [];
  const left: string[] = [];
  names.forEach((name, i) => {
    const summary = data[i]?.[shown];
    if (!summary) {
      left.push(`${name} (${data[i] ? `no ${shown} time` : 'no result'})`);
      return;
    }
    series.push({ name, color: runColor(i), points: spectrumPoints(summary) });
  });
  return (
    <SpectrumChart
      kind={shown}
      kinds={kinds}
      onKindChange={setKind}
      series={series}
      note={left.length > 0 ? `Not drawn: ${left.join(', ')}.` : undefined}
    />
  );
}

import type { Schemas } from '@/lib/api-client';
import { formatCount } from '@/lib/format';
import { spectrumPoints } from '../../utils/spectrum';
import { runColor } from '../../utils/compared-runs';
import { SpectrumChart, spectrumKinds } from '../spectrum/spectrum-chart';
import { useViewParam } from '../../hooks/use-view-param';
import { viewParams } from '../../utils/view-params';

/** PercentileSpectrum is a run's percentile spectrum: its result's response, service or lag percentiles, the choice kept in the URL. */
export function PercentileSpectrum({ result }: { result: Schemas['RunResult'] }) {
  const available = spectrumKinds.filter((k) => result[k] !== undefined);
  const [kind, setKind] = useViewParam(viewParams.spectrum, spectrumKinds, result.primary);
  const shown = available.includes(kind) ? kind : (available[0] ?? 'service');
  const summary = result[shown];
  return (
    <SpectrumChart
      kind={shown}
      kinds={available}
      onKindChange={setKind}
      series={[{ name: `${shown} time`, color: runColor(0), points: spectrumPoints(summary) }]}
      note={summary && `Over ${formatCount(summary.count)} requests.`}
    />
  );
}

import { useMemo, type ReactNode } from 'react';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import { ErrorState, Loading } from '@/components/ui/states';
import type { Schemas } from '@/lib/api-client';
import { formatCount, formatDuration } from '@/lib/format';
import { runTimelineCsvUrl, useRunTimeline } from '../../api/get-run-timeline';
import { timelinePoints } from '../../utils/timeline';
import { ChartLegend } from './chart-legend';
import { ChartArea } from '@/components/ui/chart-area';
import { plots } from './plots-code';

const okColor = 'var(--chart-2)';
const errorColor = 'var(--bad)';

interface ScatterProps {
  runId: string;
  timeline: Schemas['RunTimeline'];
  /** size draws the chart at a fixed size instead of filling its box (tests, where nothing has a size). */
  size?: { width: number; height: number };
}

/**
 * TimelineScatter draws every sampled request of a run at its send time and
 * latency, errors in their own colour: stalls and bursts show as columns
 * and gaps that per-second percentiles smooth over.
 */
export function TimelineScatter({ runId, timeline, size }: ScatterProps) {
  const { ok, errors } = useMemo(() => timelinePoints(timeline.samples), [timeline.samples]);
  const last = timeline.samples.length ? timeline.samples[timeline.samples.length - 1]!.sent_us / 1e6 : 0;
  const domain: [number, number] = [0, Math.max(1, Math.ceil(last))];
  const sampled = timeline.samples.length;
  let body: ReactNode;
  if (sampled === 0) body = <div className="run-chart-empty">No requests were sampled.</div>;
  else {
    body = (
      <ChartArea style={{ height: 320 }} code={plots}>
        {(p) => <p.TimelinePlot ok={ok} errors={errors} domain={domain} okColor={okColor} errorColor={errorColor} size={size} />}
      </ChartArea>
    );
  }
  return (
    <section className="card" aria-label="Request timeline">
      <div className="run-chart-head">
        <h2>Request timeline</h2>
        <span className="row">
          <span className="run-chart-note" data-testid="timeline-note">
            {formatCount(sampled)} of {formatCount(timeline.seen)} requests sampled · {formatCount(errors.length)} errors · service time
          </span>
          {sampled > 0 && <ChartDownload title="Request timeline" csvHref={runTimelineCsvUrl(runId)} />}
        </span>
      </div>
      {body}
      {sampled > 0 && (
        <>
          <ChartLegend
            items={[
              { label: 'ok', color: okColor },
              { label: 'error', color: errorColor },
            ]}
          />
          <ChartTable
            title="Request timeline, sampled requests"
            rows={timeline.samples}
            rowKey={(_, i) => i}
            columns={[
              { label: 'Sent at (s)', value: (s) => (s.sent_us / 1e6).toFixed(3), num: true },
              { label: 'Service time', value: (s) => formatDuration(s.latency_us), num: true },
              { label: 'Code', value: (s) => s.code },
              { label: 'Outcome', value: (s) => (s.ok ? 'ok' : 'error') },
            ]}
          />
        </>
      )}
    </section>
  );
}

/** TimelineChart loads a run's timeline once it has ended and draws it. */
export function TimelineChart({ runId }: { runId: string }) {
  const tl = useRunTimeline(runId, true);
  if (tl.isPending) return <Loading label="Loading timeline…" />;
  if (tl.error) return <ErrorState error={tl.error} retry={() => tl.refetch()} />;
  if (!tl.data) return null;
  return <TimelineScatter runId={runId} timeline={tl.data} />;
}

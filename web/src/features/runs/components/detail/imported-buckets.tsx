import { memo, useMemo } from 'react';
import { ChartDownload } from '@/components/ui/chart-download';
import { ChartTable } from '@/components/ui/chart-table';
import type { Schemas } from '@/lib/api-client';
import { formatCount } from '@/lib/format';
import { bucketRows } from '../../utils/imported';
import { ChartArea } from '@/components/ui/chart-area';
import { plots } from './plots-code';

/**
 * ImportedBuckets draws an imported document's histogram, count per bucket:
 * an imported run has no per-second figures to chart.
 */
export const ImportedBuckets = memo(function ImportedBuckets({ buckets }: { buckets?: Schemas['HistogramBucket'][] }) {
  const rows = useMemo(() => bucketRows(buckets), [buckets]);
  const total = rows.reduce((n, r) => n + r.count, 0);
  return (
    <section className="card" aria-label="Histogram buckets">
      <div className="run-chart-head">
        <h2>Latency histogram</h2>
        <span className="run-chart-note" data-testid="bucket-summary">
          {rows.length} bucket{rows.length === 1 ? '' : 's'}, {formatCount(total)} requests, from the document
        </span>
        {rows.length > 0 && (
          <ChartDownload
            title="Latency histogram, imported"
            csv={() => ({ header: ['start_ms', 'end_ms', 'count'], rows: rows.map((r) => [r.startMs, r.endMs, r.count]) })}
          />
        )}
      </div>
      {rows.length === 0 ? (
        <div className="run-chart-empty">The document has no histogram buckets.</div>
      ) : (
        <ChartArea style={{ height: 320 }} code={plots}>
          {(p) => <p.BucketsPlot rows={rows} />}
        </ChartArea>
      )}
      {rows.length > 0 && (
        <ChartTable
          title="Latency histogram from the document"
          rows={rows}
          rowKey={(r, i) => `${r.range}#${i}`}
          columns={[
            { label: 'Bucket', value: (r) => r.range },
            { label: 'Requests', value: (r) => formatCount(r.count), num: true },
          ]}
        />
      )}
    </section>
  );
});

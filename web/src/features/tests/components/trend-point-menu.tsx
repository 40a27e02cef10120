import { useEffect, useRef, type CSSProperties } from 'react';
import { Link } from 'react-router';
import type { LatencyKind } from '@/lib/latency-kind';
import { formatDuration, formatRate, formatTime } from '@/lib/format';
import { compareWithHref, markLabel, type TrendRow } from '../utils/trend';
import { MarkShape } from './verdict-mark';

type Props = {
  row: TrendRow;
  /** previous is the run before it on the trend, which "Compare with previous run" sets beside it. */
  previous?: TrendRow;
  kind: LatencyKind;
  style?: CSSProperties;
  /** onClose closes the menu; with restore (Escape) the point or row that opened it takes the focus back. */
  onClose: (restore: boolean) => void;
};

/**
 * TrendPointMenu is the popover of a run on the trend: its figures and
 * verdict, "Open run" and "Compare with previous run". It takes the focus
 * when it opens; Escape, or a click or focus outside it, closes it.
 */
export function TrendPointMenu({ row, previous, kind, style, onClose }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    el?.querySelector<HTMLElement>('a')?.focus();
    const away = (e: Event) => {
      if (el && e.target instanceof Node && !el.contains(e.target)) onClose(false);
    };
    document.addEventListener('pointerdown', away);
    return () => document.removeEventListener('pointerdown', away);
  }, [onClose]);
  return (
    <div ref={ref} className="trend-menu" role="dialog" aria-label={`Run ${row.name}`} data-testid="trend-menu" data-run={row.id}
      style={style}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.stopPropagation();
        onClose(true);
      }}
      onBlur={(e) => {
        if (e.relatedTarget instanceof Node && !e.currentTarget.contains(e.relatedTarget)) onClose(false);
      }}>
      <strong className="trend-menu-title">{row.name}</strong>
      <dl>
        <dt>Started</dt>
        <dd>{formatTime(new Date(row.t).toISOString())}</dd>
        <dt>p99 ({kind})</dt>
        <dd>{formatDuration(row.p99)}</dd>
        <dt>QPS</dt>
        <dd>{formatRate(row.qps)}</dd>
        <dt>Verdict</dt>
        <dd data-testid="trend-menu-verdict">
          <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">
            <MarkShape mark={row.mark} x={7} y={7} />
          </svg>{' '}
          {markLabel[row.mark]}
          {row.degraded && row.mark !== 'degraded' ? ', lost a shard' : ''}
        </dd>
      </dl>
      <div className="trend-menu-actions">
        <Link to={`/runs/${row.id}`}>Open run</Link>
        {previous ? (
          <Link to={compareWithHref(previous.id, row.id)}>Compare with previous run</Link>
        ) : (
          <span className="muted">First run: nothing before it to compare with</span>
        )}
      </div>
    </div>
  );
}

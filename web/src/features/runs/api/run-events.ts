import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Schemas } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { isRunStatus, isTerminal, type RunStatus } from '@/lib/run-status';
import { mergeShardIntervals, type ShardInterval } from '../utils/agent-series';
import { mergeIntervals, type Interval } from '../utils/intervals';

function json(e: MessageEvent): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(String(e.data));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** parseStatusEvent reads a `status` event's data: {run_id, status}. */
export function parseStatusEvent(e: MessageEvent): RunStatus | undefined {
  const d = json(e);
  return typeof d?.status === 'string' && isRunStatus(d.status) ? d.status : undefined;
}

/** parseIntervalEvent reads an `interval` event's data, an Interval. */
export function parseIntervalEvent(e: MessageEvent): Interval | undefined {
  const d = json(e);
  if (!d || typeof d.second !== 'number' || typeof d.qps !== 'number' || typeof d.snapshots !== 'number') return undefined;
  for (const k of ['response', 'service', 'lag', 'ret_codes'] as const) {
    if (d[k] === null || typeof d[k] !== 'object') return undefined;
  }
  return d as unknown as Interval;
}

/** parseShardsEvent reads a `shards` event's data: {second, items: ShardInterval[]}. */
export function parseShardsEvent(e: MessageEvent): ShardInterval[] | undefined {
  const d = json(e);
  if (!d || typeof d.second !== 'number' || !Array.isArray(d.items)) return undefined;
  const items = d.items as unknown[];
  const ok = items.every((r) => r !== null && typeof r === 'object' && typeof (r as ShardInterval).shard === 'number' && typeof (r as ShardInterval).qps === 'number');
  return ok ? (items as ShardInterval[]) : undefined;
}

/** parseResultEvent reads a `result` event's data, a RunResult. */
export function parseResultEvent(e: MessageEvent): Schemas['RunResult'] | undefined {
  const d = json(e);
  return d && typeof d.count === 'number' && typeof d.run_id === 'string' ? (d as unknown as Schemas['RunResult']) : undefined;
}

export interface RunEventHandler {
  status(e: MessageEvent): void;
  interval(e: MessageEvent): void;
  /** shards takes a second's per-shard figures (sent after its interval). */
  shards(e: MessageEvent): void;
  result(e: MessageEvent): void;
  /** flush writes the seconds taken since the last write into the cache now (the stream's end, the page's). */
  flush(): void;
  /** ended is true once the stream told of the run's end (a terminal status or the result). */
  readonly ended: boolean;
}

/**
 * batchMs is how long seconds gather before they are written into the cache
 * together: a tenth of the stream's one-second beat. A replay (a reconnect's
 * last seconds, or a whole run when its seconds could not be read before
 * the stream opened) then costs ten renders a second, not one a second
 * replayed, and so do the copies of a second the server sends again as its
 * shards' snapshots add to it.
 */
export const batchMs = 100;

/**
 * createRunEventHandler writes a run's stream into the query cache: seconds into the intervals list, status into the run, the result
 * into the result query. Every view of the run reads the same numbers. Seconds are written batchMs after the first of them arrives,
 * together, and at once before a status or the result.
 */
export function createRunEventHandler(qc: QueryClient, runId: string): RunEventHandler {
  let ended = false;
  let seconds: Interval[] = [];
  let shardRows: ShardInterval[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const ivs = seconds;
    const rows = shardRows;
    seconds = [];
    shardRows = [];
    if (ivs.length > 0) qc.setQueryData<Interval[]>(runKeys.intervals(runId), (old) => mergeIntervals(old ?? [], ivs));
    if (rows.length > 0) qc.setQueryData<ShardInterval[]>(runKeys.shardIntervals(runId), (old) => mergeShardIntervals(old ?? [], rows));
  };
  const later = () => {
    timer ??= setTimeout(flush, batchMs);
  };
  return {
    get ended() {
      return ended;
    },
    flush,
    status(e) {
      const status = parseStatusEvent(e);
      if (!status) return;
      flush(); // the seconds before a status change come before it
      const before = qc.getQueryData<Schemas['Run']>(runKeys.detail(runId));
      if (isTerminal(status)) ended = true;
      if (!before || before.status === status) return;
      qc.setQueryData<Schemas['Run']>(runKeys.detail(runId), { ...before, status });
      // The rest of the run moves with its status (start_at and shards at
      // dispatch, ended_at, verdict and summary at the end): read it once.
      void qc.invalidateQueries({ queryKey: runKeys.detail(runId), exact: true });
    },
    interval(e) {
      const iv = parseIntervalEvent(e);
      if (!iv) return;
      seconds.push(iv);
      later();
    },
    shards(e) {
      const rows = parseShardsEvent(e);
      if (!rows || rows.length === 0) return;
      shardRows.push(...rows);
      later();
    },
    result(e) {
      const r = parseResultEvent(e);
      ended = true;
      flush();
      if (r) qc.setQueryData(runKeys.result(runId), r);
    },
  };
}

/**
 * eventsUrl is the run's event stream, starting after the last of the
 * seconds held (after=, as Last-Event-ID would): the server then replays
 * only the few seconds a late shard may still change, not the whole run,
 * which for an hour-long run would keep the page from live seconds for as
 * long as that replay takes.
 */
export function eventsUrl(runId: string, held: readonly Interval[] | undefined): string {
  const url = `/api/v1/runs/${encodeURIComponent(runId)}/events`;
  const last = held?.at(-1);
  return last ? `${url}?after=${last.second}.${last.snapshots}` : url;
}

/** The state of the live stream, for the indicator. */
export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'unavailable';

/**
 * useRunEvents follows a run that has not ended through its event stream
 * and returns the stream's state; undefined for a run that had ended when
 * the page opened. The stream opens once the run's seconds have been read
 * (or their read failed), after the last of them (eventsUrl). It stays open
 * until it delivers the end (the result, or the end of the stream after a
 * terminal status) even when the run query already says the run ended, so
 * the last seconds arrive. EventSource reconnects by itself, with
 * Last-Event-ID.
 */
export function useRunEvents(runId: string, status: RunStatus | undefined): LiveState | undefined {
  const qc = useQueryClient();
  const [follow, setFollow] = useState(false);
  const [state, setState] = useState<LiveState>('connecting');
  // Latched: once a run is seen running, its end must not cut the stream short.
  if (!follow && status !== undefined && !isTerminal(status)) setFollow(true);

  useEffect(() => {
    if (!follow) return;
    const h = createRunEventHandler(qc, runId);
    let es: EventSource | undefined;
    const open = () => {
      const stream = new EventSource(eventsUrl(runId, qc.getQueryData<Interval[]>(runKeys.intervals(runId))));
      es = stream;
      const end = () => {
        stream.close();
        h.flush();
        setState('ended');
      };
      stream.onopen = () => setState('live');
      stream.addEventListener('status', (e) => h.status(e));
      stream.addEventListener('interval', (e) => h.interval(e));
      stream.addEventListener('shards', (e) => h.shards(e));
      stream.addEventListener('result', (e) => {
        h.result(e);
        end();
      });
      stream.onerror = () => {
        // The server closes the stream after the end; do not reconnect then.
        if (h.ended || isTerminal(qc.getQueryData<Schemas['Run']>(runKeys.detail(runId))?.status)) return end();
        // CLOSED: the server refused the stream (not an event stream); the browser gives up.
        setState(stream.readyState === EventSource.CLOSED ? 'unavailable' : 'reconnecting');
      };
    };
    // The stream starts after the seconds the page has read (eventsUrl), so
    // it opens once that read has answered.
    const read = () => {
      const st = qc.getQueryState(runKeys.intervals(runId));
      return st !== undefined && (st.data !== undefined || st.status === 'error');
    };
    let unsubscribe: (() => void) | undefined;
    if (read()) open();
    else {
      unsubscribe = qc.getQueryCache().subscribe(() => {
        if (es || !read()) return;
        unsubscribe?.();
        open();
      });
    }
    return () => {
      unsubscribe?.();
      es?.close();
      h.flush();
    };
  }, [follow, runId, qc]);

  // Without a stream the seconds were polled; read them once more at the end.
  const ended = isTerminal(status);
  useEffect(() => {
    if (state === 'unavailable' && ended) void qc.invalidateQueries({ queryKey: runKeys.intervals(runId), exact: true });
  }, [state, ended, runId, qc]);

  return follow ? state : undefined;
}

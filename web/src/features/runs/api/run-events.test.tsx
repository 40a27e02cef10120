import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import { createElement, type ReactNode } from 'react';
import type { Schemas } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import type { ShardInterval } from '../utils/agent-series';
import type { Interval } from '../utils/intervals';
import { batchMs, createRunEventHandler, parseIntervalEvent, parseStatusEvent, useRunEvents } from './run-events';

const id = '0b7e7f0e-55a3-4c4b-9a53-6d3c1c6f0a11';

function run(status: Schemas['RunStatus']): Schemas['Run'] {
  return {
    id,
    project_id: 'p',
    name: 'r',
    status,
    source: 'ui',
    spec: { url: 'http://127.0.0.1/' },
    thresholds: [],
    labels: {},
    target: 'http://127.0.0.1/',
    qps_requested: 200,
    created_at: '2025-01-01T00:00:00Z',
    updated_at: '2025-01-01T00:00:00Z',
    shard_count: 2,
    degraded: false,
    pinned: false,
  };
}

function iv(second: number, count: number, snapshots: number): Interval {
  const lat = { p50_us: 100, p90_us: 200, p99_us: 300, max_us: 400 };
  return { second, count, errors: 0, qps: count, response: lat, service: lat, lag: lat, ret_codes: { '200': count }, bytes_sent: 1, bytes_received: 2, snapshots, generator_limited: false };
}

const msg = (type: string, data: unknown, lastEventId = '0.0') =>
  new MessageEvent(type, { data: typeof data === 'string' ? data : JSON.stringify(data), lastEventId });

function result(): Schemas['RunResult'] {
  const lat = { count: 400, min_us: 1, avg_us: 2, stddev_us: 1, p50_us: 2, p75_us: 3, p90_us: 4, p99_us: 5, p999_us: 6, max_us: 7 };
  return {
    run_id: id,
    status: 'completed',
    imported: false,
    count: 400,
    errors: 0,
    qps: 200,
    duration_seconds: 2,
    primary: 'response',
    response: lat,
    service: lat,
    lag: lat,
    ret_codes: { '200': 400 },
    bytes_sent: 1,
    bytes_received: 1,
    shards: 2,
    lost_shards: 0,
    degraded: false,
  };
}

describe('event parsing', () => {
  it('reads status events and refuses unknown statuses', () => {
    expect(parseStatusEvent(msg('status', { run_id: id, status: 'running' }))).toBe('running');
    expect(parseStatusEvent(msg('status', { run_id: id, status: 'exploded' }))).toBeUndefined();
    expect(parseStatusEvent(msg('status', 'not json'))).toBeUndefined();
  });

  it('reads interval events and refuses partial ones', () => {
    expect(parseIntervalEvent(msg('interval', iv(3, 10, 1)))?.second).toBe(3);
    expect(parseIntervalEvent(msg('interval', { second: 3, qps: 1 }))).toBeUndefined();
    expect(parseIntervalEvent(msg('interval', '[1,2]'))).toBeUndefined();
  });
});

describe('createRunEventHandler', () => {
  let qc: QueryClient;
  beforeEach(() => {
    qc = new QueryClient();
  });

  it('merges seconds into the intervals query, latest per second, sorted', () => {
    const h = createRunEventHandler(qc, id);
    h.interval(msg('interval', iv(0, 100, 1), '0.1'));
    h.interval(msg('interval', iv(1, 100, 1), '1.1'));
    h.interval(msg('interval', iv(0, 200, 2), '1.1')); // the second shard adds to second 0
    h.interval(msg('interval', iv(0, 100, 1), '1.1')); // a replay after reconnecting
    h.interval(msg('interval', 'garbage'));
    h.flush();
    const data = qc.getQueryData<Interval[]>(runKeys.intervals(id))!;
    expect(data.map((i) => [i.second, i.count])).toEqual([
      [0, 200],
      [1, 100],
    ]);
  });

  it('merges shards events into the per-shard query, ignoring malformed ones', () => {
    const h = createRunEventHandler(qc, id);
    const sh = (second: number, shard: number, count: number) => ({
      second, shard, agent_name: `agent-${shard}`, count, errors: 0, qps: count, service_p50_us: 1, service_p99_us: 2,
      response_p99_us: 3, lag_p99_us: 4, cpu_used: 0.1, cpu_cores: 2,
    });
    h.shards(msg('shards', { second: 0, items: [sh(0, 0, 100), sh(0, 1, 90)] }));
    h.shards(msg('shards', { second: 1, items: [sh(1, 0, 80)] }));
    h.shards(msg('shards', { second: 2, items: [{ shard: 'x' }] }));
    h.shards(msg('shards', 'garbage'));
    h.flush();
    const data = qc.getQueryData<ShardInterval[]>(runKeys.shardIntervals(id))!;
    expect(data.map((r) => [r.second, r.shard, r.count])).toEqual([
      [0, 0, 100],
      [0, 1, 90],
      [1, 0, 80],
    ]);
  });

  it('writes a replay of an hour of seconds into the cache at once, not a second at a time', () => {
    vi.useFakeTimers();
    try {
      const h = createRunEventHandler(qc, id);
      const writes = vi.spyOn(qc, 'setQueryData');
      for (let s = 0; s < 3600; s++) h.interval(msg('interval', iv(s, 100, 1), `${s}.1`));
      expect(writes).not.toHaveBeenCalled();
      vi.advanceTimersByTime(batchMs);
      expect(writes).toHaveBeenCalledTimes(1);
      expect(qc.getQueryData<Interval[]>(runKeys.intervals(id))).toHaveLength(3600);
      // The next second, as a live stream sends it: one more write.
      h.interval(msg('interval', iv(3600, 100, 1), '3600.1'));
      vi.advanceTimersByTime(batchMs);
      expect(writes).toHaveBeenCalledTimes(2);
      expect(qc.getQueryData<Interval[]>(runKeys.intervals(id))?.at(-1)?.second).toBe(3600);
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes the seconds it holds before a status change and before the result', () => {
    qc.setQueryData(runKeys.detail(id), run('running'));
    const h = createRunEventHandler(qc, id);
    h.interval(msg('interval', iv(0, 100, 1), '0.1'));
    h.status(msg('status', { run_id: id, status: 'stopping' }));
    expect(qc.getQueryData<Interval[]>(runKeys.intervals(id))).toHaveLength(1);
    h.interval(msg('interval', iv(1, 100, 1), '1.1'));
    h.result(msg('result', result()));
    expect(qc.getQueryData<Interval[]>(runKeys.intervals(id))).toHaveLength(2);
  });

  it('patches the status of the cached run and marks the end', () => {
    qc.setQueryData(runKeys.detail(id), run('dispatching'));
    const h = createRunEventHandler(qc, id);
    h.status(msg('status', { run_id: id, status: 'running' }));
    expect(qc.getQueryData<Schemas['Run']>(runKeys.detail(id))?.status).toBe('running');
    expect(qc.getQueryData<Schemas['Run']>(runKeys.detail(id))?.qps_requested).toBe(200);
    expect(h.ended).toBe(false);
    h.status(msg('status', { run_id: id, status: 'completed' }));
    expect(qc.getQueryData<Schemas['Run']>(runKeys.detail(id))?.status).toBe('completed');
    expect(h.ended).toBe(true);
  });

  it('invalidates the run when its status changes, not when it is repeated', () => {
    qc.setQueryData(runKeys.detail(id), run('running'));
    const spy = vi.spyOn(qc, 'invalidateQueries');
    const h = createRunEventHandler(qc, id);
    h.status(msg('status', { run_id: id, status: 'running' }));
    expect(spy).not.toHaveBeenCalled();
    h.status(msg('status', { run_id: id, status: 'stopping' }));
    expect(spy).toHaveBeenCalledWith({ queryKey: ['runs', id], exact: true });
  });

  it('puts the result into the result query', () => {
    const h = createRunEventHandler(qc, id);
    h.result(msg('result', result()));
    expect(qc.getQueryData<Schemas['RunResult']>(runKeys.result(id))?.count).toBe(400);
    expect(h.ended).toBe(true);
  });
});

/** FakeEventSource stands in for the browser's: the test fires its events. */
class FakeEventSource {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 2;
  static last: FakeEventSource | undefined;
  static instances = 0;
  readyState = FakeEventSource.CONNECTING;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  listeners = new Map<string, (e: MessageEvent) => void>();
  constructor(readonly url: string) {
    FakeEventSource.last = this;
    FakeEventSource.instances++;
  }
  addEventListener(type: string, fn: (e: MessageEvent) => void) {
    this.listeners.set(type, fn);
  }
  close() {
    this.readyState = FakeEventSource.CLOSED;
  }
  fire(type: string, data: unknown) {
    this.listeners.get(type)?.(msg(type, data));
  }
}

describe('useRunEvents', () => {
  beforeEach(() => {
    FakeEventSource.last = undefined;
    FakeEventSource.instances = 0;
    vi.stubGlobal('EventSource', FakeEventSource);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  function setup(status: Schemas['RunStatus'], held: Interval[] | null = []) {
    const qc = new QueryClient();
    qc.setQueryData(runKeys.detail(id), run(status));
    if (held) qc.setQueryData(runKeys.intervals(id), held);
    const wrapper = ({ children }: { children: ReactNode }) => createElement(QueryClientProvider, { client: qc }, children);
    const hook = renderHook(({ s }) => useRunEvents(id, s), { wrapper, initialProps: { s: status } });
    return { qc, hook };
  }

  it('does not open a stream for a run that had ended', () => {
    const { hook } = setup('completed');
    expect(FakeEventSource.last).toBeUndefined();
    expect(hook.result.current).toBeUndefined();
  });

  it('follows a running run into the cache and closes on the result', () => {
    vi.useFakeTimers();
    const { qc, hook } = setup('running');
    const es = FakeEventSource.last!;
    expect(es.url).toBe(`/api/v1/runs/${id}/events`);
    expect(hook.result.current).toBe('connecting');
    act(() => {
      es.readyState = FakeEventSource.OPEN;
      es.onopen?.();
    });
    expect(hook.result.current).toBe('live');
    act(() => es.fire('interval', iv(0, 200, 2)));
    expect(qc.getQueryData<Interval[]>(runKeys.intervals(id))).toHaveLength(0); // gathering for batchMs
    act(() => vi.advanceTimersByTime(batchMs));
    expect(qc.getQueryData<Interval[]>(runKeys.intervals(id))).toHaveLength(1);

    act(() => {
      es.readyState = FakeEventSource.CONNECTING;
      es.onerror?.();
    });
    expect(hook.result.current).toBe('reconnecting');

    act(() => es.fire('status', { run_id: id, status: 'completed' }));
    hook.rerender({ s: 'completed' });
    expect(es.readyState).not.toBe(FakeEventSource.CLOSED); // still waiting for the result
    act(() => es.fire('result', result()));
    expect(es.readyState).toBe(FakeEventSource.CLOSED);
    expect(hook.result.current).toBe('ended');
    expect(qc.getQueryData<Schemas['RunResult']>(runKeys.result(id))?.count).toBe(400);
  });

  it('opens once the seconds are read, after the last of them', () => {
    const { qc } = setup('running', null);
    expect(FakeEventSource.last).toBeUndefined(); // the page's read of the seconds has not answered
    act(() => qc.setQueryData(runKeys.intervals(id), [iv(0, 100, 2), iv(41, 90, 2)]));
    expect(FakeEventSource.last?.url).toBe(`/api/v1/runs/${id}/events?after=41.2`);
    act(() => qc.setQueryData(runKeys.intervals(id), [iv(0, 100, 2), iv(42, 90, 2)]));
    expect(FakeEventSource.instances).toBe(1); // opened once
  });

  it('opens from the start when the seconds could not be read', async () => {
    const { qc } = setup('running', null);
    await qc.prefetchQuery({ queryKey: runKeys.intervals(id), queryFn: () => Promise.reject(new Error('down')) });
    expect(FakeEventSource.last?.url).toBe(`/api/v1/runs/${id}/events`);
  });

  it('stops when the stream ends after a terminal status without a result', () => {
    const { hook } = setup('running');
    const es = FakeEventSource.last!;
    act(() => es.fire('status', { run_id: id, status: 'failed' }));
    act(() => es.onerror?.());
    expect(es.readyState).toBe(FakeEventSource.CLOSED);
    expect(hook.result.current).toBe('ended');
  });

  it('says when the server refuses the stream', () => {
    const { hook } = setup('queued');
    const es = FakeEventSource.last!;
    act(() => {
      es.readyState = FakeEventSource.CLOSED;
      es.onerror?.();
    });
    expect(hook.result.current).toBe('unavailable');
  });
});

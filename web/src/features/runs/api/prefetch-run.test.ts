import { QueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { runKeys } from '@/lib/query-keys';
import { prefetchRunPage } from './prefetch-run';

type Init = { params: { path: { run: string }; query?: Record<string, unknown> } };

/** stubApi answers each path after the given delay (ms), recording when each read began. */
function stubApi(status: string, source = 'run', delays: Record<string, number> = {}, times: Record<string, string> = {}) {
  const began: string[] = [];
  vi.spyOn(api, 'GET').mockImplementation((async (path: string, init: Init) => {
    const format = init.params.query?.format;
    const step = init.params.query?.step;
    began.push(path === '/runs/{run}/result' ? `${path}?${String(format)}` : step !== undefined ? `${path}?step=${String(step)}` : path);
    await new Promise((r) => setTimeout(r, delays[path] ?? 0));
    const ok = (data: unknown) => ({ data, response: new Response(null, { status: 200 }) });
    // A run that has not ended has no result yet: the API answers 409.
    if (path === '/runs/{run}/result' && !['completed', 'failed', 'canceled'].includes(status)) {
      return { error: { type: 'about:blank', title: 'Conflict', status: 409 }, response: new Response(null, { status: 409 }) };
    }
    switch (path) {
      case '/runs/{run}':
        return ok({ id: init.params.path.run, status, source, spec: {}, ...times });
      case '/runs/{run}/intervals':
      case '/runs/{run}/shards/intervals':
        return ok({ items: [] });
      default:
        return ok({ path });
    }
  }) as never);
  return began;
}

async function settle(qc: QueryClient) {
  for (let i = 0; i < 20 && qc.isFetching() > 0; i++) await new Promise((r) => setTimeout(r, 5));
}

describe('prefetchRunPage', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads the run beside its result and histogram, then its seconds and timeline', async () => {
    const began = stubApi('completed', 'run', { '/runs/{run}': 20 });
    const qc = new QueryClient();
    prefetchRunPage(qc, 'r1', new URLSearchParams());
    // Until the run answers, only what needs nothing of it is asked for: the first screen's reads.
    expect([...began].sort()).toEqual(['/runs/{run}', '/runs/{run}/result?barrage', '/runs/{run}/result?fortio']);
    await settle(qc);
    expect(began.slice(3).sort()).toEqual(['/runs/{run}/intervals', '/runs/{run}/timeline']);
    expect(qc.getQueryData(runKeys.detail('r1'))).toMatchObject({ id: 'r1', status: 'completed' });
    expect(qc.getQueryData(runKeys.intervals('r1'))).toEqual([]);
    expect(qc.getQueryData(runKeys.result('r1'))).toEqual({ path: '/runs/{run}/result' });
    expect(qc.getQueryData(runKeys.fortioResult('r1'))).toEqual({ path: '/runs/{run}/result' });
  });

  it('keeps nothing of a running run’s 409s, and reads no seconds or timeline of an imported run', async () => {
    let began = stubApi('running');
    let qc = new QueryClient();
    prefetchRunPage(qc, 'r2', new URLSearchParams());
    await settle(qc);
    await new Promise((r) => setTimeout(r, 10));
    expect(began.sort()).toEqual(['/runs/{run}', '/runs/{run}/intervals', '/runs/{run}/result?barrage', '/runs/{run}/result?fortio']);
    // Once the run has ended, the page's queries find no answer cached and ask again.
    expect(qc.getQueryState(runKeys.result('r2'))).toBeUndefined();
    expect(qc.getQueryState(runKeys.fortioResult('r2'))).toBeUndefined();
    vi.restoreAllMocks();
    began = stubApi('completed', 'import');
    qc = new QueryClient();
    prefetchRunPage(qc, 'r3', new URLSearchParams());
    await settle(qc);
    expect(began.sort()).toEqual(['/runs/{run}', '/runs/{run}/result?barrage', '/runs/{run}/result?fortio']);
  });

  it('reads the per-shard seconds only when the link has the per-agent lines on', async () => {
    const began = stubApi('running');
    const qc = new QueryClient();
    prefetchRunPage(qc, 'r4', new URLSearchParams('agents=on'));
    await settle(qc);
    expect(began).toContain('/runs/{run}/shards/intervals');
    expect(qc.getQueryData(runKeys.shardIntervals('r4'))).toEqual([]);
  });

  it('reads an ended hour-long run’s merged and per-shard rows in windows of 12 s, under their own keys', async () => {
    const began = stubApi('completed', 'run', {}, { started_at: '2026-11-28T08:00:00Z', ended_at: '2026-11-28T09:00:00Z' });
    const qc = new QueryClient();
    prefetchRunPage(qc, 'r5', new URLSearchParams('agents=on'));
    await settle(qc);
    expect(began).toContain('/runs/{run}/shards/intervals?step=12');
    expect(began).toContain('/runs/{run}/intervals?step=12');
    expect(began).not.toContain('/runs/{run}/shards/intervals');
    expect(began).not.toContain('/runs/{run}/intervals');
    expect(qc.getQueryData(runKeys.shardIntervals('r5', 12))).toEqual([]);
    expect(qc.getQueryData(runKeys.shardIntervals('r5'))).toBeUndefined();
    expect(qc.getQueryData(runKeys.intervals('r5', undefined, 12))).toEqual([]);
    expect(qc.getQueryData(runKeys.intervals('r5'))).toBeUndefined();
  });
});

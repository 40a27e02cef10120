import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { api } from '@/lib/api-client';
import type { RunStatus } from '@/lib/run-status';
import { runShardsQuery, useRunShards } from './list-run-shards';

function setup() {
  const paths: unknown[] = [];
  vi.spyOn(api, 'GET').mockImplementation((async (path: string, init: { params: { path: { run: string } } }) => {
    paths.push([path, init.params.path.run]);
    return { data: { items: [] }, response: new Response(null, { status: 200 }) };
  }) as never);
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 5_000 } } });
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={qc}>{children}</QueryClientProvider>;
  return { paths, wrapper };
}

describe('useRunShards', () => {
  afterEach(() => vi.restoreAllMocks());

  it('polls only while the run has not ended', () => {
    expect(runShardsQuery('r', true).refetchInterval).toBe(2_000);
    expect(runShardsQuery('r', false).refetchInterval).toBe(false);
    expect(runShardsQuery('r', false).queryKey).toEqual(['runs', 'r', 'shards']);
  });

  it('reads the shards once more when a run it saw going ends', async () => {
    const { paths, wrapper } = setup();
    const { result, rerender } = renderHook(({ status }: { status: RunStatus }) => useRunShards('r', status), {
      wrapper,
      initialProps: { status: 'running' },
    });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(paths).toEqual([['/runs/{run}/shards', 'r']]);
    rerender({ status: 'completed' });
    await waitFor(() => expect(paths).toHaveLength(2));
  });

  it('reads the shards of a run that had ended once', async () => {
    const { paths, wrapper } = setup();
    // The run query may answer after this one: the status is unknown at first.
    const { result, rerender } = renderHook(({ status }: { status: RunStatus | undefined }) => useRunShards('r', status), {
      wrapper,
      initialProps: { status: undefined as RunStatus | undefined },
    });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    rerender({ status: 'completed' });
    await act(() => Promise.resolve());
    expect(paths).toHaveLength(1);
  });
});

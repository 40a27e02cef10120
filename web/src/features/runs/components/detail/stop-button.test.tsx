import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { jsonResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { StopButton } from './stop-button';

const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

describe('StopButton', () => {
  beforeEach(() => fetchMock.mockReset());

  it('asks before it stops, and stops only on "Stop now", by keyboard', async () => {
    fetchMock.mockResolvedValue(jsonResponse({ id: 'r1', status: 'stopping' }, 202));
    renderRoutes([{ path: '/', element: <StopButton runId="r1" /> }], '/');
    const user = userEvent.setup();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Stop run' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('group', { name: /Stop this run\?/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Keep running' })).toHaveFocus();
    expect(fetchMock).not.toHaveBeenCalled();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('group')).toBeNull();
    expect(screen.getByRole('button', { name: 'Stop run' })).toHaveFocus();
    expect(fetchMock).not.toHaveBeenCalled();
    await user.keyboard('{Enter}');
    await user.click(screen.getByRole('button', { name: 'Stop now' }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const req = fetchMock.mock.calls[0]![0];
    expect(req.method).toBe('POST');
    expect(new URL(req.url).pathname).toBe('/api/v1/runs/r1/stop');
  });
});

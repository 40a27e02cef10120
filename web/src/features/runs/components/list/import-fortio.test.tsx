import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { jsonResponse, problemResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { ImportFortio } from './import-fortio';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const good = '{"RunType":"HTTP","Labels":"lab","DurationHistogram":{"Count":10,"Data":[]}}';
const bad = '{"RunType":"HTTP"}';

afterEach(() => fetchMock.mockReset());

describe('ImportFortio', () => {
  it('posts each file as it is with its name as origin, and reports each outcome', async () => {
    fetchMock.mockImplementation(async (req) => {
      const origin = new URL(req.url).searchParams.get('origin');
      if (origin === 'good.json') return jsonResponse({ id: 'run-imported-1', name: 'lab', source: 'import' }, 201);
      return problemResponse(
        {
          type: 'https://barrage.dev/problems/validation',
          title: 'Validation failed',
          status: 422,
          detail: 'not a Fortio result',
          errors: [{ field: 'DurationHistogram', message: 'is required' }],
        },
        422,
      );
    });
    const user = userEvent.setup();
    renderRoutes([{ path: '/runs', element: <ImportFortio /> }, { path: '/runs/:id', element: <p>run</p> }], '/runs');

    const input = screen.getByLabelText('Import Fortio JSON files');
    expect(input).toHaveAttribute('accept', '.json,application/json');
    await user.upload(input, [new File([good], 'good.json', { type: 'application/json' }), new File([bad], 'bad.json', { type: 'application/json' })]);

    const list = await screen.findByRole('list', { name: 'Imports' });
    await waitFor(() => expect(within(list).getByRole('link', { name: 'lab' })).toHaveAttribute('href', '/runs/run-imported-1'));
    await waitFor(() => expect(list).toHaveTextContent('bad.json: not a Fortio result'));
    expect(list).toHaveTextContent('DurationHistogram: is required');
    expect(list).toHaveTextContent('good.json: imported as lab');

    expect(fetchMock).toHaveBeenCalledTimes(2);
    const [first, second] = fetchMock.mock.calls.map(([r]) => r);
    const u = new URL(first!.url);
    expect(first!.method).toBe('POST');
    expect(u.pathname).toBe('/api/v1/imports');
    expect(u.searchParams.get('project')).toBe('default');
    expect(u.searchParams.get('origin')).toBe('good.json');
    expect(first!.headers.get('Content-Type')).toBe('application/json');
    expect(await first!.text()).toBe(good);
    expect(new URL(second!.url).searchParams.get('origin')).toBe('bad.json');
    expect(await second!.text()).toBe(bad);

    await user.click(within(list).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('list', { name: 'Imports' })).toBeNull();
  });
});

import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '@/lib/api-client';
import { jsonResponse, problemResponse } from '@/testing/fetch-stub';
import { renderRoutes } from '@/testing/render';
import { NewRunForm } from './new-run-form';

// vi.hoisted runs before the imports above: openapi-fetch keeps the fetch it
// finds when lib/api-client.ts is first imported.
const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

function renderForm() {
  return renderRoutes(
    [
      { path: '/runs/new', element: <NewRunForm /> },
      { path: '/runs/:id', element: <p>run page</p> },
    ],
    '/runs/new',
  );
}

afterEach(() => fetchMock.mockReset());

describe('NewRunForm', () => {
  it('shows the API field errors next to their inputs', async () => {
    fetchMock.mockResolvedValue(
      problemResponse(
        {
          type: 'https://barrage.dev/problems/validation',
          title: 'Validation failed',
          status: 422,
          detail: 'the run has invalid fields',
          errors: [
            { field: 'spec.qps', message: 'must be at least 0' },
            { field: 'project', message: 'is not a project you can run in' },
          ],
        },
        422,
      ),
    );
    const user = userEvent.setup();
    renderForm();
    await user.type(screen.getByLabelText(/^URL/), 'http://127.0.0.1:18601/');
    const qps = screen.getByLabelText(/^QPS/);
    await user.clear(qps);
    await user.type(qps, '-1');
    await user.click(screen.getByTestId('start-run'));

    await waitFor(() => expect(qps).toHaveAttribute('aria-invalid', 'true'));
    expect(qps).toHaveAccessibleDescription(expect.stringContaining('must be at least 0'));
    // The message sits inside the qps field's own label, not elsewhere on the form.
    expect(qps.closest('label')).toHaveTextContent('must be at least 0');
    // A field the form has no input for goes to the summary.
    expect(screen.getByRole('alert')).toHaveTextContent('project: is not a project you can run in');

    expect(fetchMock).toHaveBeenCalledTimes(1);
    const req = fetchMock.mock.calls[0]![0];
    expect(req.method).toBe('POST');
    expect(new URL(req.url).pathname).toBe('/api/v1/runs');
    expect(req.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await req.json()).toEqual({
      project: 'default',
      source: 'ui',
      spec: { url: 'http://127.0.0.1:18601/', qps: -1, connections: 8, duration: '5s', percentiles: [50, 75, 90, 99, 99.9] },
    });
  });

  it('refuses non-numeric qps without calling the API', async () => {
    const user = userEvent.setup();
    renderForm();
    await user.type(screen.getByLabelText(/^URL/), 'http://127.0.0.1:18601/');
    const qps = screen.getByLabelText(/^QPS/);
    await user.clear(qps);
    await user.type(qps, 'abc');
    await user.click(screen.getByTestId('start-run'));
    expect(await screen.findByText('must be a number')).toBeInTheDocument();
    expect(qps).toHaveAttribute('aria-invalid', 'true');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("shows a project limit's refusal next to the field at fault", async () => {
    fetchMock.mockResolvedValue(
      problemResponse(
        {
          type: 'https://barrage.dev/problems/validation',
          title: 'Invalid request',
          status: 422,
          detail: 'the run has invalid fields',
          errors: [{ field: 'spec.connections', message: "must be at most 8, this project's limit" }],
        },
        422,
      ),
    );
    const user = userEvent.setup();
    renderForm();
    await user.type(screen.getByLabelText(/^URL/), 'http://127.0.0.1:18601/');
    await user.click(screen.getByTestId('start-run'));
    const connections = screen.getByLabelText(/^Connections/);
    await waitFor(() => expect(connections).toHaveAttribute('aria-invalid', 'true'));
    expect(connections).toHaveAccessibleDescription(expect.stringContaining("must be at most 8, this project's limit"));
  });

  it('shows why a run over the concurrent runs limit was not started', async () => {
    fetchMock.mockResolvedValue(
      problemResponse(
        {
          type: 'https://barrage.dev/problems/quota-exceeded',
          title: 'Quota exceeded',
          status: 429,
          detail: 'the project already has 2 runs queued or in progress, its limit (max_concurrent_runs); retry when one has finished',
        },
        429,
      ),
    );
    const user = userEvent.setup();
    renderForm();
    await user.type(screen.getByLabelText(/^URL/), 'http://127.0.0.1:18601/');
    await user.click(screen.getByTestId('start-run'));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The run was not started: Quota exceeded');
    expect(alert).toHaveTextContent('the project already has 2 runs queued or in progress, its limit (max_concurrent_runs)');
  });

  it('repeats the Idempotency-Key for the same body only', async () => {
    fetchMock.mockImplementation(async () => problemResponse({ type: 'https://barrage.dev/problems/unavailable', title: 'Unavailable', status: 503 }, 503));
    const user = userEvent.setup();
    renderForm();
    await user.type(screen.getByLabelText(/^URL/), 'http://127.0.0.1:18601/');
    await user.click(screen.getByTestId('start-run'));
    await screen.findByText(/The run was not started: Unavailable/);
    await user.click(screen.getByTestId('start-run'));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(2));
    await user.type(screen.getByLabelText(/^QPS/), '0');
    await user.click(screen.getByTestId('start-run'));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(3));
    const keys = fetchMock.mock.calls.map(([req]) => req.headers.get('Idempotency-Key'));
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('keeps a stored request mix, and shows an error inside it at the JSON input', async () => {
    fetchMock.mockResolvedValue(
      problemResponse(
        {
          type: 'https://barrage.dev/problems/validation',
          title: 'Validation failed',
          status: 422,
          errors: [{ field: 'spec.requests[1].url', message: 'must be on the run\'s scheme and host, http://127.0.0.1:18601' }],
        },
        422,
      ),
    );
    const mix = [
      { name: 'reads', url: 'http://127.0.0.1:18601/r', weight: 8 },
      { name: 'writes', url: 'http://other:1/w', method: 'PUT', weight: 2 },
    ];
    const test: Schemas['Test'] = {
      id: '0190b1c2-0000-7000-8000-000000000002',
      project_id: 'p',
      name: 'mix',
      description: '',
      spec: { url: 'http://127.0.0.1:18601/', qps: 50, duration: '10s', requests: mix },
      thresholds: [],
      labels: {},
      created_at: '2025-01-01T00:00:00Z',
      updated_at: '2025-01-01T00:00:00Z',
    };
    const user = userEvent.setup();
    renderRoutes([{ path: '/runs/new', element: <NewRunForm test={test} /> }], '/runs/new');
    // The mix has no inputs of its own: it is shown, open, as JSON.
    const more = screen.getByLabelText(/^More spec fields/);
    expect(more).toBeVisible();
    expect(JSON.parse((more as HTMLTextAreaElement).value)).toEqual({ requests: mix });
    const qps = screen.getByLabelText(/^QPS/);
    await user.clear(qps);
    await user.type(qps, '60');
    await user.click(screen.getByTestId('start-run'));

    await waitFor(() => expect(more).toHaveAttribute('aria-invalid', 'true'));
    expect(more).toHaveAccessibleDescription(expect.stringContaining("must be on the run's scheme and host"));
    const body = (await fetchMock.mock.calls[0]![0].json()) as { spec: Schemas['RunSpec'] };
    expect(body.spec).toMatchObject({ url: 'http://127.0.0.1:18601/', qps: 60, requests: mix });
  });

  it('goes to the new run on success', async () => {
    fetchMock.mockResolvedValue(jsonResponse({ id: 'r-1' }, 201));
    const user = userEvent.setup();
    const router = renderForm();
    await user.type(screen.getByLabelText(/^URL/), 'http://127.0.0.1:18601/');
    await user.click(screen.getByTestId('start-run'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/runs/r-1'));
  });
});

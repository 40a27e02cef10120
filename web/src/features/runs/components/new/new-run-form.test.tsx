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

  it('keeps verification on by default and warns when -k turns it off', async () => {
    fetchMock.mockResolvedValue(jsonResponse({ id: 'r-2' }, 201));
    const user = userEvent.setup();
    renderForm();
    await user.type(screen.getByLabelText(/^URL/), 'https://127.0.0.1:18601/');
    const insecure = screen.getByRole('checkbox', { name: /Skip certificate verification/ });
    expect(insecure).not.toBeChecked();
    expect(screen.queryByRole('note')).not.toBeInTheDocument();
    await user.click(screen.getByText(/^TLS: certificates/));
    await user.click(insecure);
    expect(screen.getByRole('note')).toHaveTextContent('Certificate verification is off (-k)');
    expect(screen.getByText(/^TLS: certificates/)).toHaveTextContent('(verification off)');
    await user.type(screen.getByLabelText(/^Server name \(SNI\)/), 'localhost');
    await user.selectOptions(screen.getByLabelText(/^Minimum TLS version/), '1.3');
    await user.click(screen.getByTestId('start-run'));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const body = (await fetchMock.mock.calls[0]![0].json()) as { spec: Schemas['RunSpec'] };
    expect(body.spec).toMatchObject({ insecure: true, tls: { server_name: 'localhost', min_version: '1.3' } });
  });

  it('shows the API’s error about the client key beside the key', async () => {
    fetchMock.mockResolvedValue(
      problemResponse(
        {
          type: 'https://barrage.dev/problems/validation',
          title: 'Validation failed',
          status: 422,
          errors: [{ field: 'spec.tls.client_key', message: 'does not match tls.client_cert: private key does not match public key' }],
        },
        422,
      ),
    );
    const user = userEvent.setup();
    renderForm();
    await user.type(screen.getByLabelText(/^URL/), 'https://127.0.0.1:18601/');
    await user.click(screen.getByText(/^TLS: certificates/));
    await user.type(screen.getByLabelText(/^Client certificate/), 'CERT');
    await user.type(screen.getByLabelText(/^Client key/), 'KEY');
    await user.click(screen.getByTestId('start-run'));
    const key = screen.getByLabelText(/^Client key/);
    await waitFor(() => expect(key).toHaveAttribute('aria-invalid', 'true'));
    expect(key.closest('label')).toHaveTextContent('does not match tls.client_cert');
    expect(screen.getByLabelText(/^Client certificate/)).not.toHaveAttribute('aria-invalid');
    const body = (await fetchMock.mock.calls[0]![0].json()) as { spec: Schemas['RunSpec'] };
    expect(body.spec.tls).toEqual({ client_cert: 'CERT', client_key: 'KEY' });
  });

  it('shows a stored client key as set, never its value, and asks for it again for an edited spec', async () => {
    fetchMock.mockResolvedValue(jsonResponse({ id: 'r-3' }, 201));
    const test: Schemas['Test'] = {
      id: '0190b1c2-0000-7000-8000-000000000003',
      project_id: 'p',
      name: 'mtls',
      description: '',
      spec: { url: 'https://127.0.0.1:18601/', qps: 5, duration: '2s', tls: { client_cert: 'REDACTED', client_key: 'REDACTED', server_name: 'localhost' } },
      thresholds: [],
      labels: {},
      created_at: '2025-01-01T00:00:00Z',
      updated_at: '2025-01-01T00:00:00Z',
    };
    const user = userEvent.setup();
    renderRoutes([{ path: '/runs/new', element: <NewRunForm test={test} /> }, { path: '/runs/:id', element: <p>run page</p> }], '/runs/new');
    // The section opens, as it holds stored values; the secrets show as set.
    expect(screen.getByLabelText(/^Server name/)).toHaveValue('localhost');
    expect(screen.getAllByText('Set (stored sealed, not shown)')).toHaveLength(2);
    expect(screen.queryByDisplayValue('REDACTED')).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: /^Client key/ })).not.toBeInTheDocument();

    // Edited, the spec runs on its own, where a sealed key cannot go: refused here.
    const qps = screen.getByLabelText(/^QPS/);
    await user.clear(qps);
    await user.type(qps, '6');
    await user.click(screen.getByTestId('start-run'));
    expect(await screen.findAllByText(/is sealed with the test, so it only runs the unedited test/)).toHaveLength(2);
    const summary = screen.getByRole('alert');
    expect(summary).toHaveTextContent('the stored client certificate and key are sealed with the test');
    expect(summary).toHaveTextContent('2 fields below need attention');
    await waitFor(() => expect(summary).toHaveFocus());
    expect(fetchMock).not.toHaveBeenCalled();

    // Replaced, the new key and certificate are sent.
    await user.click(screen.getByRole('button', { name: 'Replace Client key (PEM)' }));
    await user.click(screen.getByRole('button', { name: 'Replace Client certificate (PEM)' }));
    await user.type(screen.getByLabelText(/^Client key/), 'NEWKEY');
    await user.type(screen.getByLabelText(/^Client certificate/), 'NEWCERT');
    expect(screen.getAllByRole('button', { name: /^Keep the stored/ })).toHaveLength(2);
    await user.click(screen.getByTestId('start-run'));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const body = (await fetchMock.mock.calls[0]![0].json()) as { spec: Schemas['RunSpec'] };
    expect(body.spec.tls).toEqual({ client_cert: 'NEWCERT', client_key: 'NEWKEY', server_name: 'localhost' });
  });
});

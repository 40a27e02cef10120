import { api } from '@/lib/api-client';
import { startEarlyReads } from '@/lib/early-reads';
import { jsonResponse } from '@/testing/fetch-stub';
import { getRun } from './get-run';
import { getRunFortioResult } from './get-run-fortio-result';
import { getRunResult } from './get-run-result';

const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());

const run = '01a2240d-be7e-77dd-979a-08663b0f9609';

/** urlOf is what fetch was asked for: a URL (the early reads) or a Request (the API client). */
const urlOf = (input: unknown) => (input instanceof Request ? input.url : String(input));

describe("the run page's early reads", () => {
  it("are the very reads the page's fetchers make, each answered once", async () => {
    fetchMock.mockImplementation((input: unknown) => Promise.resolve(jsonResponse({ url: urlOf(input) })));
    startEarlyReads(location.origin, `/runs/${run}`);
    expect(fetchMock).toHaveBeenCalledTimes(5);

    // The shell's two reads and the run page's three take the early answers: fetch is not called again.
    expect(await getRun(run)).toEqual({ url: `${location.origin}/api/v1/runs/${run}` });
    expect(await getRunResult(run)).toEqual({ url: `${location.origin}/api/v1/runs/${run}/result?format=barrage` });
    expect(await getRunFortioResult(run)).toEqual({ url: `${location.origin}/api/v1/runs/${run}/result?format=fortio` });
    expect((await api.GET('/me')).data).toEqual({ url: `${location.origin}/api/v1/me` });
    expect((await api.GET('/auth/methods')).data).toEqual({ url: `${location.origin}/api/v1/auth/methods` });
    expect(fetchMock).toHaveBeenCalledTimes(5);

    // Asked again, the run is read afresh.
    await getRun(run);
    expect(fetchMock).toHaveBeenCalledTimes(6);
    expect(urlOf(fetchMock.mock.calls[5]![0])).toBe(`${location.origin}/api/v1/runs/${run}`);
  });
});

import { vi, type Mock } from 'vitest';

export type FetchMock = Mock<(req: Request) => Promise<Response>>;

/**
 * stubFetch replaces the global fetch with a mock that receives each API
 * call's Request, and returns the mock.
 *
 * openapi-fetch keeps the fetch and Request it finds when lib/api-client.ts
 * is first imported, so call it before any import of code under test runs:
 * from vi.hoisted, which vitest runs ahead of the file's imports (and which
 * cannot see them, hence the dynamic import):
 *
 *   import { Thing } from './thing';
 *   const fetchMock = await vi.hoisted(async () => (await import('@/testing/fetch-stub')).stubFetch());
 *
 * Node's Request wants an absolute URL; the page's origin stands in for the
 * browser, which resolves the client's relative /api/v1 base against it.
 */
export function stubFetch(): FetchMock {
  const m: FetchMock = vi.fn();
  vi.stubGlobal('fetch', m);
  const Base = globalThis.Request;
  vi.stubGlobal(
    'Request',
    class extends Base {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        super(typeof input === 'string' ? new URL(input, location.href) : input, init);
      }
    },
  );
  return m;
}

/** jsonResponse is an API answer with a JSON body. */
export function jsonResponse(body: object, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** problemResponse is an API error answer: RFC 9457 problem details. */
export function problemResponse(body: object, status: number): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/problem+json' } });
}

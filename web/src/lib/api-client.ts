import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './api-schema';
import { takeEarly } from './early-reads';

export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];

/** ApiError is a failed API call, carrying its RFC 9457 problem details. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(problem.detail ?? problem.title);
    this.name = 'ApiError';
    this.status = problem.status;
    this.problem = problem;
  }

  /** fieldErrors maps each field the API named to its message. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.problem.errors ?? []) out[e.field] ??= e.message;
    return out;
  }
}

/**
 * The session cookie travels with every same-origin call. A GET that the
 * page asked for early (early-reads.ts) takes that answer instead.
 */
export const api = createClient<paths>({
  baseUrl: '/api/v1',
  credentials: 'same-origin',
  fetch: (req: Request, init?: RequestInit) => takeEarly(req) ?? globalThis.fetch(req, init),
});

const onUnauthenticated = new Set<() => void>();

/** onSignedOut registers a callback for any 401 answer (session expired). */
export function onSignedOut(cb: () => void): () => void {
  onUnauthenticated.add(cb);
  return () => onUnauthenticated.delete(cb);
}

const unauthenticated: Middleware = {
  onResponse({ response, request }) {
    if (response.status === 401 && !request.url.endsWith('/auth/login')) {
      onUnauthenticated.forEach((cb) => cb());
    }
    return undefined;
  },
};
api.use(unauthenticated);

/**
 * unwrap returns an openapi-fetch result's data or throws its problem as an
 * ApiError, so TanStack Query sees a rejected promise.
 */
export function unwrap<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.error !== undefined || !r.response.ok) {
    throw new ApiError(asProblem(r.error, r.response));
  }
  return r.data as T;
}

function asProblem(body: unknown, res: Response): Problem {
  if (body && typeof body === 'object' && 'status' in body && 'title' in body) return body as Problem;
  return { type: 'about:blank', title: res.statusText || 'Request failed', status: res.status };
}

import { describe, expect, it } from 'vitest';
import { ApiError } from './api-client';
import { isPageLoadError, isUnreachable } from './unreachable';

describe('isUnreachable', () => {
  it('is a refused connection or a proxy without an API behind it, not an answer of the API', () => {
    expect(isUnreachable(new TypeError('Failed to fetch'))).toBe(true);
    expect(isUnreachable(new ApiError({ type: 'about:blank', title: 'Bad Gateway', status: 502 }))).toBe(true);
    expect(isUnreachable(new ApiError({ type: 'about:blank', title: 'Gateway Timeout', status: 504 }))).toBe(true);
    expect(isUnreachable(new ApiError({ type: 'https://barrage.dev/problems/internal', title: 'Internal', status: 502 }))).toBe(false);
    expect(isUnreachable(new ApiError({ type: 'about:blank', title: 'Internal Server Error', status: 500 }))).toBe(false);
    expect(isUnreachable(new Error('boom'))).toBe(false);
    expect(isUnreachable(undefined)).toBe(false);
  });
});

describe('isPageLoadError', () => {
  it("is a route's code that did not load", () => {
    expect(isPageLoadError(new TypeError('Failed to fetch dynamically imported module: http://x/assets/a.js'))).toBe(true);
    expect(isPageLoadError(new Error('Unable to preload CSS for http://x/assets/a.css'))).toBe(true);
    expect(isPageLoadError(new Error('x is undefined'))).toBe(false);
  });
});

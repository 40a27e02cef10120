import { countsText, isOkCode } from './ret-codes';

describe('isOkCode', () => {
  it('takes HTTP 2xx, gRPC SERVING and TCP/UDP OK as success', () => {
    expect(['200', '204', '299', 'SERVING', 'OK'].filter(isOkCode)).toHaveLength(5);
  });

  it('takes every other code as a failure', () => {
    expect(['-1', '301', '404', '503', '2000', 'NOT_SERVING', 'ok'].filter(isOkCode)).toEqual([]);
  });
});

describe('countsText', () => {
  it('lists the counts largest first, ties by name', () => {
    expect(countsText({ '503': 12, '200': 750, '429': 12 })).toBe('200 ×750, 429 ×12, 503 ×12');
    expect(countsText(undefined)).toBe('');
  });
});

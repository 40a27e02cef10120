import { readParam, withParam } from './view-params';

const kinds = ['response', 'service', 'lag'] as const;

test('readParam takes only an allowed value', () => {
  const p = new URLSearchParams('latency=lag&spectrum=bogus&hist=');
  expect(readParam(p, 'latency', kinds)).toBe('lag');
  expect(readParam(p, 'spectrum', kinds)).toBeUndefined();
  expect(readParam(p, 'hist', ['log', 'linear'])).toBeUndefined();
  expect(readParam(p, 'codes', ['all'])).toBeUndefined();
});

test('withParam sets or drops one parameter and keeps the others', () => {
  const p = new URLSearchParams('ids=a,b&latency=lag');
  expect(withParam(p, 'spectrum', 'service').toString()).toBe('ids=a%2Cb&latency=lag&spectrum=service');
  expect(withParam(p, 'latency', undefined).toString()).toBe('ids=a%2Cb');
  expect(withParam(p, 'latency', 'service').toString()).toBe('ids=a%2Cb&latency=service');
  // The input is not changed.
  expect(p.toString()).toBe('ids=a%2Cb&latency=lag');
});

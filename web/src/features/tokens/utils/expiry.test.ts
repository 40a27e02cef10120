import { expiresAt, tokenState } from './expiry';

const now = Date.parse('2026-03-01T12:00:00Z');

test('expiresAt adds whole days and leaves never undefined', () => {
  expect(expiresAt(30, now)).toBe('2026-03-31T12:00:00.000Z');
  expect(expiresAt(1, now)).toBe('2026-03-02T12:00:00.000Z');
  expect(expiresAt(0, now)).toBeUndefined();
  expect(expiresAt(-3, now)).toBeUndefined();
  expect(expiresAt(Number.NaN, now)).toBeUndefined();
});

test('tokenState: revoked wins over expired, expired at the instant itself', () => {
  expect(tokenState({}, now)).toBe('active');
  expect(tokenState({ expires_at: '2026-03-01T12:00:01Z' }, now)).toBe('active');
  expect(tokenState({ expires_at: '2026-03-01T12:00:00Z' }, now)).toBe('expired');
  expect(tokenState({ expires_at: '2026-02-01T00:00:00Z', revoked_at: '2026-01-01T00:00:00Z' }, now)).toBe('revoked');
});

import { describeActor, localToIso, toQuery } from './audit-filter';

test('localToIso reads the viewer zone and rejects junk', () => {
  expect(localToIso('')).toBeUndefined();
  expect(localToIso('yesterday')).toBeUndefined();
  expect(localToIso('2026-03-01T12:30')).toBe(new Date(2026, 2, 1, 12, 30).toISOString());
});

test('toQuery trims, drops empty fields and checks the time order', () => {
  expect(toQuery({ actor: ' ann@x.test ', action: 'run.', since: '', until: '' })).toEqual({
    query: { actor: 'ann@x.test', action: 'run.' },
    errors: {},
  });
  const ok = toQuery({ actor: '', action: '', since: '2026-03-01T10:00', until: '2026-03-01T11:00' });
  expect(ok.errors).toEqual({});
  expect(ok.query.since).toBe(new Date(2026, 2, 1, 10).toISOString());
  expect(ok.query.until).toBe(new Date(2026, 2, 1, 11).toISOString());
  expect(toQuery({ actor: '', action: '', since: '2026-03-01T11:00', until: '2026-03-01T11:00' }).errors).toEqual({ until: 'Must be after From' });
});

test('describeActor', () => {
  expect(describeActor({ email: 'a@x.test', token_name: 'ci' })).toBe('a@x.test (token ci)');
  expect(describeActor({ token_name: 'ci' })).toBe('token ci');
  expect(describeActor({ email: 'a@x.test' })).toBe('a@x.test');
  expect(describeActor({})).toBe('system');
});

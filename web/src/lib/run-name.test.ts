import { runCreated, runName, runTail } from './run-name';

// A UUIDv7 made at 2026-11-27T06:14:05.123Z: its first 48 bits are that millisecond.
const ms = Date.UTC(2026, 10, 27, 6, 14, 5, 123);
const v7 = '01a21ba3-bc43-7d2e-8f10-5c9e8a4ea47b';
// The same instant in the viewer's zone, written independently of run-name.ts ("sv-SE" writes 2026-11-27 06:14:05).
const local = new Date(ms).toLocaleString('sv-SE').slice(0, 16);

describe('runTail', () => {
  it('is the last 6 hex digits, without dashes, lower case', () => {
    expect(runTail(v7)).toBe('4ea47b');
    expect(runTail('01A21BA3-BC43-7D2E-8F10-5C9E8A4EA47B')).toBe('4ea47b');
  });
});

describe('runCreated', () => {
  it('reads the time a UUIDv7 carries, before created_at', () => {
    expect(runCreated({ id: v7 })?.getTime()).toBe(ms);
    expect(runCreated({ id: v7, created_at: '2020-01-01T00:00:00Z' })?.getTime()).toBe(ms);
  });
  it('takes created_at for another id (an imported run has a random UUIDv4)', () => {
    const v4 = '3b241101-e2bb-4255-8caf-4136c566a962';
    expect(runCreated({ id: v4, created_at: '2026-11-27T06:14:05.123Z' })?.getTime()).toBe(ms);
    expect(runCreated({ id: v4 })).toBeUndefined();
    expect(runCreated({ id: v4, created_at: 'not a time' })).toBeUndefined();
  });
});

describe('runName', () => {
  it('is the name when there is one', () => {
    expect(runName({ id: v7, name: 'checkout p99' })).toBe('checkout p99');
    expect(runName({ id: v7, name: '  checkout p99 ' })).toBe('checkout p99');
  });
  it('is the creation date and the id tail otherwise', () => {
    expect(local).toMatch(/^2026-11-2[67] \d\d:\d\d$/);
    expect(runName({ id: v7 })).toBe(`${local} · 4ea47b`);
    expect(runName({ id: v7, name: '' })).toBe(`${local} · 4ea47b`);
    expect(runName({ id: v7, name: '   ' })).toBe(`${local} · 4ea47b`);
    expect(runName({ id: v7, name: null })).toBe(`${local} · 4ea47b`);
  });
  it('tells apart two unnamed runs created in the same millisecond by their tails', () => {
    const other = '01a21ba3-bc43-7d2e-8f10-5c9e8a000001';
    expect(runName({ id: other })).toBe(`${local} · 000001`);
    expect(runName({ id: other })).not.toBe(runName({ id: v7 }));
  });
  it('is the tail alone when nothing dates the run', () => {
    expect(runName({ id: 'r1' })).toBe('r1');
    expect(runName({ id: '3b241101-e2bb-4255-8caf-4136c566a962' })).toBe('66a962');
  });
});

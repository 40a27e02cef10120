import { compareHref, maxCompare, parseIds, withoutId } from './ids';

describe('parseIds', () => {
  it('keeps the order of the URL', () => {
    expect(parseIds('c,a,b')).toEqual(['c', 'a', 'b']);
  });

  it('ignores blanks and whitespace', () => {
    expect(parseIds(' a, ,b,,  ')).toEqual(['a', 'b']);
    expect(parseIds('')).toEqual([]);
    expect(parseIds(null)).toEqual([]);
    expect(parseIds(',,')).toEqual([]);
  });

  it('drops repeats, keeping the first, whatever the case', () => {
    expect(parseIds('a,b,a,B,c')).toEqual(['a', 'b', 'c']);
  });

  it('keeps at most 20 ids', () => {
    const many = Array.from({ length: 25 }, (_, i) => `id${i}`);
    const got = parseIds(many.join(','));
    expect(got).toHaveLength(maxCompare);
    expect(got[0]).toBe('id0');
    expect(got[19]).toBe('id19');
  });
});

describe('compareHref', () => {
  it('writes the ids with plain commas', () => {
    expect(compareHref(['0190-a', '0190-b'])).toBe('/compare?ids=0190-a,0190-b');
  });

  it('is the bare page without ids', () => {
    expect(compareHref([])).toBe('/compare');
  });

  it('round-trips through parseIds', () => {
    const ids = ['x1', 'x2', 'x3'];
    expect(parseIds(new URL(compareHref(ids), 'http://h').searchParams.get('ids'))).toEqual(ids);
  });
});

describe('withoutId', () => {
  it('removes one id and keeps the rest in order', () => {
    expect(withoutId(['a', 'b', 'c'], 'b')).toEqual(['a', 'c']);
  });
});

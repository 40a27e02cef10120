import { describe, expect, it } from 'vitest';
import { csvText, fileName, legendRows } from './chart-export';

describe('csvText', () => {
  it('writes the header and a row per point, quoting what needs it and leaving gaps empty', () => {
    expect(csvText({ header: ['second', 'qps'], rows: [[0, 10.5], [1, undefined], ['a,"b"', Number.NaN]] })).toBe(
      'second,qps\r\n0,10.5\r\n1,\r\n"a,""b""",\r\n',
    );
  });
});

describe('fileName', () => {
  it('keeps letters and digits, dashes between', () => {
    expect(fileName('Percentile spectrum, response time')).toBe('percentile-spectrum-response-time');
    expect(fileName('—')).toBe('chart');
  });
});

describe('legendRows', () => {
  it('fills each row up to the width, an item wider than the row alone on its row', () => {
    const items = ['achieved', 'target', 'generator limited', 'a very long label indeed'].map((label) => ({ label, color: '#000' }));
    // Each item is 18 + 6 + 16 px around its label, here 5 px a character.
    const rows = legendRows(items, 200, (s) => s.length * 5);
    expect(rows.map((r) => r.map((it) => it.label))).toEqual([['achieved', 'target'], ['generator limited'], ['a very long label indeed']]);
    expect(legendRows([], 200, () => 0)).toEqual([]);
  });
});

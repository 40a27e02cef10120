import { describe, expect, it } from 'vitest';
import { csvText, fileName } from './chart-export';

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

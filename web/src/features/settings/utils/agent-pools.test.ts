import { checkPools, parsePools, poolErrorsOf } from './agent-pools';

describe('parsePools', () => {
  it('splits on commas, spaces and line breaks', () => {
    expect(parsePools(' gpu-eu, blue\nred  ,, ')).toEqual(['gpu-eu', 'blue', 'red']);
    expect(parsePools('  ')).toEqual([]);
  });
});

describe('checkPools', () => {
  it('takes 1 to 63 of a-z, 0-9 and inner dashes', () => {
    expect(checkPools(['gpu-eu', 'a', '0', 'x'.repeat(63)])).toEqual([]);
  });
  it('names each pool the API would refuse', () => {
    expect(checkPools(['Blue', '-edge', 'edge-', 'x'.repeat(64), 'ok'])).toEqual([
      '"Blue": a pool is 1 to 63 of a-z, 0-9 and inner dashes',
      '"-edge": a pool is 1 to 63 of a-z, 0-9 and inner dashes',
      '"edge-": a pool is 1 to 63 of a-z, 0-9 and inner dashes',
      `"${'x'.repeat(64)}": a pool is 1 to 63 of a-z, 0-9 and inner dashes`,
    ]);
    expect(checkPools(Array.from({ length: 65 }, (_, i) => `p${i}`))).toEqual(['at most 64 pools']);
  });
});

describe('poolErrorsOf', () => {
  it('names the pool of each pools[i] error', () => {
    expect(poolErrorsOf([{ field: 'pools[1]', message: 'bad' }, { field: 'pools', message: 'too many' }], ['a', 'B'])).toEqual([
      '"B": bad',
      'too many',
    ]);
  });
});

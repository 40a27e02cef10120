import { describe, expect, it, vi } from 'vitest';
import { chartCode } from './chart-code';

describe('chartCode', () => {
  it('imports once, then holds the code and tells those waiting', async () => {
    const load = vi.fn(() => Promise.resolve({ draw: 'plot' }));
    const code = chartCode(load);
    const loaded = vi.fn();
    code.subscribe(loaded);
    const gone = vi.fn();
    code.subscribe(gone)();
    expect(code.current()).toBeUndefined();
    const [a, b] = await Promise.all([code.load(), code.load()]);
    expect(a).toBe(b);
    expect(code.current()).toBe(a);
    expect(load).toHaveBeenCalledTimes(1);
    expect(loaded).toHaveBeenCalledTimes(1);
    expect(gone).not.toHaveBeenCalled();
  });

  it('tries again after a failed import', async () => {
    const load = vi.fn().mockRejectedValueOnce(new Error('chunk not found')).mockResolvedValueOnce({ draw: 'plot' });
    const code = chartCode(load);
    await expect(code.load()).rejects.toThrow('chunk not found');
    expect(code.current()).toBeUndefined();
    await expect(code.load()).resolves.toEqual({ draw: 'plot' });
    expect(load).toHaveBeenCalledTimes(2);
  });
});

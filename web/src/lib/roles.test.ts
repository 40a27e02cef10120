import { can } from './roles';

describe('can', () => {
  it('orders viewer < runner < admin', () => {
    expect(can('admin', 'admin')).toBe(true);
    expect(can('admin', 'runner')).toBe(true);
    expect(can('runner', 'runner')).toBe(true);
    expect(can('runner', 'admin')).toBe(false);
    expect(can('viewer', 'viewer')).toBe(true);
    expect(can('viewer', 'runner')).toBe(false);
  });
  it('gives nothing without a role', () => {
    expect(can(undefined, 'viewer')).toBe(false);
  });
});

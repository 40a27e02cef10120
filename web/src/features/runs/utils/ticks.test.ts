import { tickLayout, truncate } from './ticks';

describe('tickLayout', () => {
  it('keeps names level when every group has room', () => {
    expect(tickLayout(1000, 3)).toEqual({ chars: 28, angle: 0, height: 30 });
    expect(tickLayout(600, 5)).toEqual({ chars: 16, angle: 0, height: 30 });
  });
  it('slants names when groups are narrow', () => {
    expect(tickLayout(200, 3)).toEqual({ chars: 16, angle: -35, height: 90 });
    expect(tickLayout(1000, 20)).toEqual({ chars: 16, angle: -35, height: 90 });
  });
});

describe('truncate', () => {
  it('cuts long names with an ellipsis and leaves short ones', () => {
    expect(truncate('echo 300qps mixed', 10)).toBe('echo 300q…');
    expect(truncate('short', 10)).toBe('short');
  });
});

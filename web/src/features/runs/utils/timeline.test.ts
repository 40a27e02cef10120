import { timelinePoints } from './timeline';

describe('timelinePoints', () => {
  it('places each request at its send second and latency, errors apart', () => {
    const { ok, errors } = timelinePoints([
      { intended_us: 0, sent_us: 500_000, latency_us: 1200, code: '200', ok: true },
      { intended_us: 1_000_000, sent_us: 1_250_000, latency_us: 90_000, code: '503', ok: false },
      { intended_us: 2_000_000, sent_us: 2_000_000, latency_us: 800, code: '200', ok: true },
    ]);
    expect(ok).toEqual([
      { x: 0.5, y: 1200, code: '200' },
      { x: 2, y: 800, code: '200' },
    ]);
    expect(errors).toEqual([{ x: 1.25, y: 90_000, code: '503' }]);
  });
});

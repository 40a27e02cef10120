// A synthetic completed run of n seconds, shaped like the API's answers, for
// the render bench: qps around 1000 with noise, latencies with spikes.

const runId = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const start = '2026-01-01T00:00:00Z';

export { runId };

function latency(s: number, base: number) {
  const spike = s % 97 === 0 ? 8 : 1;
  const wobble = 1 + 0.2 * Math.sin(s / 13);
  return {
    p50_us: base * wobble,
    p90_us: base * 1.8 * wobble,
    p99_us: base * 3.5 * wobble * spike,
    max_us: base * 6 * wobble * spike,
  };
}

export function interval(s: number) {
  const qps = 1000 + 40 * Math.sin(s / 7) + (s % 211 === 0 ? -300 : 0);
  const errors = s % 50 === 0 ? 12 : 0;
  return {
    second: s,
    count: Math.round(qps),
    errors,
    qps,
    response: latency(s, 900),
    service: latency(s, 800),
    lag: latency(s, 40),
    ret_codes: errors ? { '200': Math.round(qps) - errors, '503': errors } : { '200': Math.round(qps) },
    bytes_sent: 120 * Math.round(qps),
    bytes_received: 300 * Math.round(qps),
    snapshots: 2,
  };
}

export function run(n: number) {
  const ended = new Date(Date.parse(start) + n * 1000).toISOString();
  return {
    id: runId,
    project_id: '0190a1b2-c3d4-7e5f-8a9b-000000000001',
    name: `bench ${n} s`,
    status: 'completed',
    verdict: 'pass',
    source: 'api',
    spec: { url: 'http://127.0.0.1:8088/', qps: 1000, duration: `${n}s`, connections: 16 },
    thresholds: [],
    labels: { bench: 'web' },
    target: 'http://127.0.0.1:8088/',
    qps_requested: 1000,
    created_at: start,
    updated_at: ended,
    started_at: start,
    start_at: start,
    ended_at: ended,
    shard_count: 2,
    degraded: false,
    summary: { count: 1000 * n, errors: 12 * Math.floor(n / 50), qps: 1000, min_us: 300, avg_us: 950, p50_us: 900, p90_us: 1600, p99_us: 3200, max_us: 40000 },
  };
}

function summary(count: number, base: number) {
  return {
    count,
    min_us: base / 3,
    avg_us: base * 1.05,
    stddev_us: base / 4,
    p50_us: base,
    p75_us: base * 1.3,
    p90_us: base * 1.8,
    p99_us: base * 3.5,
    p999_us: base * 6,
    max_us: base * 40,
  };
}

export function result(n: number) {
  const count = 1000 * n;
  return {
    run_id: runId,
    status: 'completed',
    count,
    errors: 12 * Math.floor(n / 50),
    qps: 1000,
    duration_seconds: n,
    primary: 'response',
    response: summary(count, 900),
    service: summary(count, 800),
    lag: summary(count, 40),
    ret_codes: { '200': count },
    bytes_sent: 120 * count,
    bytes_received: 300 * count,
    shards: 2,
    lost_shards: 0,
    degraded: false,
  };
}

export function fortio(n: number) {
  const count = 1000 * n;
  const data = [];
  let cum = 0;
  const edges = [0.0003, 0.0004, 0.0005, 0.0006, 0.0007, 0.0008, 0.0009, 0.001, 0.0012, 0.0014, 0.0016, 0.002, 0.003, 0.004, 0.005, 0.01, 0.02, 0.04];
  const weights = [1, 2, 4, 8, 14, 18, 16, 12, 9, 6, 4, 3, 1.5, 0.8, 0.4, 0.2, 0.1];
  const total = weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < weights.length; i++) {
    const c = Math.round((weights[i]! / total) * count);
    cum += c;
    data.push({ Start: edges[i]!, End: edges[i + 1]!, Percent: (100 * cum) / count, Count: c });
  }
  return {
    RunType: 'HTTP',
    Labels: 'bench',
    StartTime: '2026-01-01T00:00:00Z',
    RequestedQPS: '1000',
    RequestedDuration: `${n}s`,
    ActualQPS: 1000,
    ActualDuration: n * 1e9,
    NumThreads: 16,
    DurationHistogram: {
      Count: count,
      Min: 0.0003,
      Max: 0.04,
      Sum: count * 0.00095,
      Avg: 0.00095,
      StdDev: 0.0002,
      Data: data,
      Percentiles: [50, 75, 90, 99, 99.9].map((p) => ({ Percentile: p, Value: 0.0009 * (1 + p / 100) })),
    },
    RetCodes: { '200': count },
  };
}

/**
 * intervalPage is the fake API's GET /runs/{run}/intervals over a run of n
 * seconds: every second, or with ?step= windows folded as the API folds them
 * (counts and codes summed, qps their mean, percentiles the largest).
 */
export function intervalPage(n: number, query: URLSearchParams) {
  const step = Number(query.get('step') ?? 1);
  const limit = Number(query.get('limit') ?? 300);
  const from = Math.floor(Number(query.get('from') ?? 0) / step) * step;
  const to = Math.min(n, from + limit * step);
  const items = [];
  for (let w = from; w < to; w += step) {
    const secs = [];
    for (let s = w; s < Math.min(to, w + step); s++) secs.push(interval(s));
    items.push(step > 1 ? fold(w, secs) : secs[0]!);
  }
  return to < n ? { items, next_from: to } : { items };
}

/** fold is one window of seconds, starting at second. */
function fold(second: number, secs: ReturnType<typeof interval>[]) {
  const sum = (f: (iv: ReturnType<typeof interval>) => number) => secs.reduce((a, iv) => a + f(iv), 0);
  const top = (k: 'response' | 'service' | 'lag') => {
    const l = secs.map((iv) => iv[k]);
    return { p50_us: Math.max(...l.map((x) => x.p50_us)), p90_us: Math.max(...l.map((x) => x.p90_us)), p99_us: Math.max(...l.map((x) => x.p99_us)), max_us: Math.max(...l.map((x) => x.max_us)) };
  };
  const codes: Record<string, number> = {};
  for (const iv of secs) for (const [c, k] of Object.entries(iv.ret_codes)) codes[c] = (codes[c] ?? 0) + (k ?? 0);
  const count = sum((iv) => iv.count);
  return {
    second, seconds: secs.length, count, errors: sum((iv) => iv.errors), qps: count / secs.length,
    response: top('response'), service: top('service'), lag: top('lag'), ret_codes: codes,
    bytes_sent: sum((iv) => iv.bytes_sent), bytes_received: sum((iv) => iv.bytes_received), snapshots: sum((iv) => iv.snapshots),
  };
}

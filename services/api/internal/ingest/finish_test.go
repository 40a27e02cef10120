package ingest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// finalOf returns a final snapshot of run id's shard, from start for
// length, with response times resp and service times svc (µs).
func finalOf(tb testing.TB, id uuid.UUID, shard uint32, start time.Time, length time.Duration, resp, svc []int64) []byte {
	tb.Helper()
	b, err := proto.Marshal(&barragev1.Snapshot{
		RunId: id.String(), Shard: shard, AgentId: testAgent, Seq: 9, Final: true,
		IntervalStart: timestamppb.New(start), IntervalEnd: timestamppb.New(start.Add(length)),
		Count: uint64(len(resp)), Errors: 1, RetCodes: map[string]uint64{"200": uint64(len(resp))},
		BytesSent: 10, BytesReceived: 20,
		ResponseHdr: encode(tb, resp...), ServiceHdr: encode(tb, svc...), LagHdr: encode(tb, 5),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// failedFinal returns the empty final snapshot of a shard that failed
// before sending, with why as its error.
func failedFinal(tb testing.TB, id uuid.UUID, shard uint32, at time.Time, why string) []byte {
	tb.Helper()
	b, err := proto.Marshal(&barragev1.Snapshot{
		RunId: id.String(), Shard: shard, AgentId: testAgent, Seq: 1, Final: true,
		IntervalStart: timestamppb.New(at), IntervalEnd: timestamppb.New(at),
		ResponseHdr: encode(tb), ServiceHdr: encode(tb), LagHdr: encode(tb), Error: why,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestDecide(t *testing.T) {
	t.Parallel()
	id := uuid.New()
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0.Add(time.Hour)
	in := &Ingester{cfg: Config{Now: func() time.Time { return now }}}
	in.cfg.Normalize()
	resp0, svc0 := []int64{100, 200, 300, 400}, []int64{90, 180, 270, 360}
	resp1, svc1 := []int64{1000, 2000}, []int64{50, 60}
	done := func(shard uint32, start time.Time, length time.Duration, resp, svc []int64) runs.ShardState {
		return runs.ShardState{Index: int(shard), Status: runs.ShardDone, Final: finalOf(t, id, shard, start, length, resp, svc)}
	}
	lost := func(shard int) runs.ShardState { return runs.ShardState{Index: shard, Status: runs.ShardLost} }
	failed := func(shard uint32, why string) runs.ShardState {
		return runs.ShardState{Index: int(shard), Status: runs.ShardDone, Final: failedFinal(t, id, shard, t0, why)}
	}
	const refused = "netguard: rebind.test:80: host \"rebind.test\" resolves to a cloud metadata address, which can never be reached"
	open, closed := spec.Spec{QPS: 100}, spec.Spec{QPS: 0}
	tests := []struct {
		name     string
		status   runs.Status
		sp       spec.Spec
		shards   []runs.ShardState
		want     runs.Status
		err      string
		degraded bool
		// resp holds the values the summary's latencies are of; nil for no summary.
		latencies []int64
		count     int64
		duration  time.Duration
		merged    int
		verdict   string
	}{
		{name: "all lost", status: runs.Running, sp: open, shards: []runs.ShardState{lost(0), lost(1)},
			want: runs.Failed, err: "all 2 shards lost: no final snapshot arrived (agent gone or deadline missed)", degraded: true,
			verdict: runs.VerdictError},
		{name: "open loop: response times", status: runs.Running, sp: open,
			shards: []runs.ShardState{done(0, t0, 4*time.Second, resp0, svc0), done(1, t0.Add(time.Second), 4*time.Second, resp1, svc1)},
			want:   runs.Completed, latencies: append(append([]int64{}, resp0...), resp1...), count: 6, duration: 5 * time.Second, merged: 2,
			verdict: runs.VerdictPass},
		{name: "max rate: service times", status: runs.Stopping, sp: closed,
			shards: []runs.ShardState{done(0, t0, 4*time.Second, resp0, svc0), done(1, t0, 2*time.Second, resp1, svc1)},
			want:   runs.Completed, latencies: append(append([]int64{}, svc0...), svc1...), count: 6, duration: 4 * time.Second, merged: 2},
		{name: "a lost shard degrades", status: runs.Running, sp: open,
			shards: []runs.ShardState{done(0, t0, 2*time.Second, resp0, svc0), lost(1)},
			want:   runs.Completed, degraded: true, latencies: resp0, count: 4, duration: 2 * time.Second, merged: 1,
			verdict: runs.VerdictError},
		{name: "unreadable final counts lost", status: runs.Running, sp: open,
			shards: []runs.ShardState{done(0, t0, 2*time.Second, resp0, svc0), {Index: 1, Status: runs.ShardDone, Final: []byte("junk")}},
			want:   runs.Completed, degraded: true, latencies: resp0, count: 4, duration: 2 * time.Second, merged: 1},
		{name: "empty final is not in the duration", status: runs.Running, sp: open,
			shards: []runs.ShardState{done(0, t0, 2*time.Second, resp0, svc0), done(1, t0.Add(time.Minute), 0, nil, nil)},
			want:   runs.Completed, latencies: resp0, count: 4, duration: 2 * time.Second, merged: 2},
		{name: "every shard refused its target", status: runs.Running, sp: open,
			shards: []runs.ShardState{failed(0, refused), failed(1, refused)},
			want:   runs.Failed, err: "2 of 2 shards failed: shard 0: " + refused + "; shard 1: " + refused, degraded: true,
			verdict: runs.VerdictError},
		{name: "a failed shard among lost ones", status: runs.Running, sp: open,
			shards: []runs.ShardState{failed(0, refused), lost(1)},
			want:   runs.Failed, err: "1 of 2 shards failed: shard 0: " + refused, degraded: true},
		{name: "a failed shard degrades", status: runs.Running, sp: open,
			shards: []runs.ShardState{done(0, t0, 2*time.Second, resp0, svc0), failed(1, refused)},
			want:   runs.Completed, degraded: true, latencies: resp0, count: 4, duration: 2 * time.Second, merged: 1},
		{name: "stopped before any request", status: runs.Stopping, sp: open,
			shards: []runs.ShardState{done(0, t0, 0, nil, nil), done(1, t0, 0, nil, nil)}, want: runs.Canceled, merged: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := runs.Settlement{Run: runs.Run{ID: id, Status: tt.status, Spec: tt.sp}, Shards: tt.shards}
			f, err := in.decide(st)
			if err != nil {
				t.Fatal(err)
			}
			if tt.verdict != "" && f.Verdict != tt.verdict || tt.want == runs.Canceled && f.Verdict != "" {
				t.Errorf("verdict %q, want %q", f.Verdict, tt.verdict)
			}
			if f.Status != tt.want || f.Error != tt.err || f.Degraded != tt.degraded || !f.At.Equal(now) {
				t.Errorf("finish = %s %q degraded %v at %v; want %s %q %v %v", f.Status, f.Error, f.Degraded, f.At, tt.want, tt.err, tt.degraded, now)
			}
			if tt.merged == 0 {
				if f.Result != nil || f.Summary != nil {
					t.Errorf("result %+v summary %+v, want none", f.Result, f.Summary)
				}
				return
			}
			if f.Result == nil || f.Result.Shards != tt.merged || f.Result.LostShards != len(tt.shards)-tt.merged ||
				f.Result.Count != tt.count || f.Result.Duration != tt.duration || f.Result.RunID != id {
				t.Fatalf("result = %+v; want %d shards, count %d, duration %s", f.Result, tt.merged, tt.count, tt.duration)
			}
			if tt.latencies == nil {
				if f.Summary != nil {
					t.Errorf("summary = %+v, want none", f.Summary)
				}
				return
			}
			h := hist.New()
			for _, v := range tt.latencies {
				h.RecordMicros(v)
			}
			q := h.Percentiles([]float64{50, 90, 99})
			want := runs.Summary{
				Count: tt.count, Errors: int64(tt.merged), QPS: float64(tt.count) / tt.duration.Seconds(),
				MinUS: micros(h.Min()), AvgUS: h.MeanMicros(), P50US: micros(q[0].Value), P90US: micros(q[1].Value),
				P99US: micros(q[2].Value), MaxUS: micros(h.Max()),
			}
			if f.Summary == nil || *f.Summary != want {
				t.Errorf("summary = %+v, want %+v", f.Summary, want)
			}
		})
	}
}

// TestDecideMergesServerLatency: the finals' server histograms merge into
// the result's; a run whose finals have none has no server histogram.
func TestDecideMergesServerLatency(t *testing.T) {
	t.Parallel()
	id := uuid.New()
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	in := &Ingester{cfg: Config{Now: func() time.Time { return t0.Add(time.Hour) }}}
	in.cfg.Normalize()
	withServer := func(shard uint32, server ...int64) runs.ShardState {
		var m barragev1.Snapshot
		if err := proto.Unmarshal(finalOf(t, id, shard, t0, time.Second, []int64{100, 200, 300}, []int64{90, 180, 270}), &m); err != nil {
			t.Fatal(err)
		}
		if server != nil {
			m.ServerHdr = encode(t, server...)
		}
		b, err := proto.Marshal(&m)
		if err != nil {
			t.Fatal(err)
		}
		return runs.ShardState{Index: int(shard), Status: runs.ShardDone, Final: b}
	}
	f, err := in.decide(runs.Settlement{Run: runs.Run{ID: id, Status: runs.Running}, Shards: []runs.ShardState{
		withServer(0, 50, 60, 70), withServer(1, 80, 90)}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := hist.Decode(f.Result.Server)
	if err != nil {
		t.Fatalf("server histogram %q: %v", f.Result.Server, err)
	}
	if h.Count() != 5 || h.Min() != 50*time.Microsecond || h.Max() != 90*time.Microsecond {
		t.Errorf("merged server histogram: count %d min %v max %v; want 5 values 50..90 µs", h.Count(), h.Min(), h.Max())
	}
	f, err = in.decide(runs.Settlement{Run: runs.Run{ID: id, Status: runs.Running}, Shards: []runs.ShardState{withServer(0), withServer(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Result.Server != nil {
		t.Errorf("server histogram of %d bytes without any in the finals", len(f.Result.Server))
	}
}

package worker_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/internal/worker"
)

func TestNewChecksConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  worker.Config
		want string
	}{
		{"no name", worker.Config{}, "name is required"},
		{"negative capacity", worker.Config{Name: "a", Capacity: -1}, "capacity -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := worker.New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestIDIsAFreshUUID(t *testing.T) {
	t.Parallel()
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 3 {
		w, err := worker.New(worker.Config{Name: "a"})
		if err != nil {
			t.Fatal(err)
		}
		if !uuid.MatchString(w.ID()) || seen[w.ID()] {
			t.Fatalf("id %q: want a new version-4 UUID (seen: %v)", w.ID(), seen)
		}
		seen[w.ID()] = true
	}
}

func TestHeartbeatAndGracefulShutdown(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.startWorker(t, worker.Config{Name: "agent-7", Labels: map[string]string{"zone": "eu", "tier": "big"},
		Capacity: 3, Version: "v9.9.9"})
	hb := h.waitHeartbeat(t, r.w.ID())
	if hb.GetAgentId() != r.w.ID() || hb.GetName() != "agent-7" || hb.GetCapacity() != 3 || hb.GetVersion() != "v9.9.9" ||
		hb.GetLabels()["zone"] != "eu" || hb.GetLabels()["tier"] != "big" || len(hb.GetLabels()) != 2 {
		t.Fatalf("heartbeat %v", hb)
	}
	if len(hb.GetRunning()) != 0 || hb.GetSentAt() == nil {
		t.Fatalf("heartbeat running %v sent_at %v", hb.GetRunning(), hb.GetSentAt())
	}
	if hb.GetRssBytes() < 1<<20 {
		t.Fatalf("heartbeat rss %d bytes: a Go process uses more than 1 MiB", hb.GetRssBytes())
	}
	// The beat repeats every HeartbeatEvery with a new sent_at.
	first := hb.GetSentAt().AsTime()
	waitFor(t, 2*wire.HeartbeatEvery+time.Second, func() error {
		if got := h.waitHeartbeat(t, r.w.ID()).GetSentAt().AsTime(); !got.After(first) {
			return fmt.Errorf("heartbeat not renewed since %s", first)
		}
		return nil
	})
	ctx := testCtx(t, 5*time.Second)
	if _, err := h.js.Consumer(ctx, wire.AssignStream, wire.AgentConsumer(r.w.ID())); err != nil {
		t.Fatalf("agent consumer: %v", err)
	}
	if err := r.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if _, err := h.agents.Get(ctx, r.w.ID()); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("heartbeat after shutdown: %v, want key not found", err)
	}
	if _, err := h.js.Consumer(ctx, wire.AssignStream, wire.AgentConsumer(r.w.ID())); !errors.Is(err, jetstream.ErrConsumerNotFound) {
		t.Fatalf("consumer after shutdown: %v, want not found", err)
	}
}

func TestRunPublishesIntervalAndFinalSnapshots(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tg := newTarget(t)
	r := h.startWorker(t, worker.Config{Capacity: 2})
	const run = "run-full"
	h.putState(t, run, barragev1.RunPhase_RUN_PHASE_RUNNING)
	startAt := h.assign(t, r.w.ID(), run, 0, shardSpec{url: tg.url("/full"), qps: 100, conns: 2,
		duration: 2 * time.Second, startIn: 500 * time.Millisecond})

	// The heartbeat lists the shard while it runs, so the API sees the slot taken.
	waitFor(t, 5*time.Second, func() error {
		hb := h.waitHeartbeat(t, r.w.ID())
		if len(hb.GetRunning()) != 1 || hb.GetRunning()[0].GetRunId() != run || hb.GetRunning()[0].GetShard() != 0 {
			return fmt.Errorf("heartbeat running %v, want %s/0", hb.GetRunning(), run)
		}
		return nil
	})
	snaps, _ := h.snapshots(t, run, 0, 10*time.Second)
	final := snaps[len(snaps)-1]
	waitFor(t, 5*time.Second, func() error {
		if hb := h.waitHeartbeat(t, r.w.ID()); len(hb.GetRunning()) != 0 {
			return fmt.Errorf("heartbeat running %v after the final snapshot, want none", hb.GetRunning())
		}
		return nil
	})
	var sum uint64
	for i, s := range snaps {
		if s.GetSeq() != uint64(i+1) {
			t.Fatalf("snapshot %d has seq %d; seqs must run 1..n", i, s.GetSeq())
		}
		if s.GetFinal() != (i == len(snaps)-1) {
			t.Fatalf("snapshot seq %d final=%v; only the last is final", s.GetSeq(), s.GetFinal())
		}
		if s.GetRunId() != run || s.GetShard() != 0 || s.GetAgentId() != r.w.ID() {
			t.Fatalf("snapshot names %s/%d from %s", s.GetRunId(), s.GetShard(), s.GetAgentId())
		}
		if !s.GetFinal() {
			sum += s.GetCount()
		}
	}
	if len(snaps) < 3 {
		t.Fatalf("%d snapshots for a 2 s run with 1 s intervals, want at least 2 intervals and the final", len(snaps))
	}
	_, _, received := tg.span("/full")
	if sum != final.GetCount() || final.GetCount() != uint64(received) {
		t.Fatalf("interval counts sum to %d, final count %d, the target received %d; want all equal", sum, final.GetCount(), received)
	}
	if final.GetCount() < 190 || final.GetCount() > 200 {
		t.Fatalf("final count %d, want about 200 (100 qps for 2 s)", final.GetCount())
	}
	if final.GetRetCodes()["200"] != final.GetCount() || final.GetErrors() != 0 {
		t.Fatalf("final ret codes %v errors %d", final.GetRetCodes(), final.GetErrors())
	}
	for name, b := range map[string][]byte{"service": final.GetServiceHdr(), "response": final.GetResponseHdr(), "lag": final.GetLagHdr()} {
		hd, err := hist.Decode(b)
		if err != nil {
			t.Fatalf("%s hdr: %v", name, err)
		}
		if hd.Count() != int64(final.GetCount()) {
			t.Fatalf("%s hdr holds %d values, final count %d", name, hd.Count(), final.GetCount())
		}
	}
	if len(final.GetServerHdr()) != 0 {
		t.Fatalf("server hdr of %d bytes without a latency header in the spec", len(final.GetServerHdr()))
	}
	first, _, _ := tg.span("/full")
	if first.Before(startAt) {
		t.Fatalf("first request at %s, before start_at %s", first.Format(time.StampMicro), startAt.Format(time.StampMicro))
	}
	if iv := final.GetIntervalEnd().AsTime().Sub(final.GetIntervalStart().AsTime()); iv < 1900*time.Millisecond || iv > 3*time.Second {
		t.Fatalf("final snapshot spans %s, want the 2 s run", iv)
	}
}

func TestStopEndsShardWithinASecond(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		stop func(t *testing.T, h *harness, r *running, run string)
	}{
		{"run state stopping", func(t *testing.T, h *harness, _ *running, run string) {
			h.putState(t, run, barragev1.RunPhase_RUN_PHASE_STOPPING)
		}},
		{"control message", func(t *testing.T, h *harness, _ *running, run string) {
			b, err := proto.Marshal(&barragev1.Control{RunId: run, Action: barragev1.Action_ACTION_STOP})
			if err != nil {
				t.Fatal(err)
			}
			if err := h.nc.Publish(wire.ControlSubject(run), b); err != nil {
				t.Fatal(err)
			}
		}},
		{"agent shutdown", func(t *testing.T, _ *harness, r *running, _ string) {
			go func() { _ = r.stop() }()
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			tg := newTarget(t)
			r := h.startWorker(t, worker.Config{})
			run := fmt.Sprintf("run-stop-%d", i)
			h.putState(t, run, barragev1.RunPhase_RUN_PHASE_RUNNING)
			const full = 100 * 20 // 100 qps for 20 s
			h.assign(t, r.w.ID(), run, 0, shardSpec{url: tg.url("/stop"), qps: 100, conns: 2, duration: 20 * time.Second})
			waitFor(t, 10*time.Second, func() error {
				if n := tg.n.Load(); n < 100 {
					return fmt.Errorf("%d requests so far", n)
				}
				return nil
			})
			stopAt := time.Now()
			tt.stop(t, h, r, run)
			snaps, finalAt := h.snapshots(t, run, 0, 10*time.Second)
			if took := finalAt.Sub(stopAt); took > 2500*time.Millisecond {
				t.Fatalf("final snapshot %s after the stop, want within about 2 s", took)
			}
			lastChange := tg.quiet(t, time.Second, 5*time.Second)
			if after := lastChange.Sub(stopAt); after > 1500*time.Millisecond {
				t.Fatalf("the target received requests %s after the stop", after)
			}
			final := snaps[len(snaps)-1]
			received := tg.n.Load()
			if final.GetCount() >= full || final.GetCount() < 100 {
				t.Fatalf("final count %d: want what ran before the stop (≥ 100, < %d)", final.GetCount(), full)
			}
			// Requests in flight at the stop may reach the target unanswered.
			if final.GetCount() > uint64(received) || uint64(received)-final.GetCount() > 2 {
				t.Fatalf("final count %d, the target received %d", final.GetCount(), received)
			}
		})
	}
}

func TestFailSafeStopsWithoutRunState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cut  func(t *testing.T, h *harness, run string)
	}{
		{"run state deleted", func(t *testing.T, h *harness, run string) {
			if err := h.runs.Delete(testCtx(t, 5*time.Second), run); err != nil {
				t.Fatal(err)
			}
		}},
		{"NATS down", func(_ *testing.T, h *harness, _ string) {
			h.srv.Shutdown()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			tg := newTarget(t)
			r := h.startWorker(t, worker.Config{ShutdownTimeout: time.Second})
			const run = "run-failsafe"
			h.putState(t, run, barragev1.RunPhase_RUN_PHASE_RUNNING)
			h.assign(t, r.w.ID(), run, 0, shardSpec{url: tg.url("/fs"), qps: 50, conns: 1, duration: 60 * time.Second})
			waitFor(t, 10*time.Second, func() error {
				if n := tg.n.Load(); n < 25 {
					return fmt.Errorf("%d requests so far", n)
				}
				return nil
			})
			cutAt := time.Now()
			tt.cut(t, h, run)
			lastChange := tg.quiet(t, 1500*time.Millisecond, wire.FailSafeAfter+6*time.Second)
			sent := lastChange.Sub(cutAt)
			t.Logf("requests stopped %s after the run state became unreadable", sent.Round(time.Millisecond))
			if sent > wire.FailSafeAfter+2*time.Second {
				t.Fatalf("requests went on for %s without a run state, want at most %s", sent, wire.FailSafeAfter+2*time.Second)
			}
			// The fail-safe is not a hair trigger: one missed read does not stop a shard.
			if sent < wire.FailSafeAfter-2*time.Second {
				t.Fatalf("requests stopped %s after the cut, before the fail-safe delay %s", sent, wire.FailSafeAfter)
			}
			if !strings.Contains(r.logs.String(), "fail-safe") {
				t.Fatalf("no fail-safe log line")
			}
		})
	}
}

func TestCapacityBoundsConcurrentShards(t *testing.T) {
	t.Parallel()
	tests := []struct {
		capacity    int
		wantOverlap bool
	}{
		{1, false}, // the second waits (nak'd, redelivered) until the first is done
		{2, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("capacity %d", tt.capacity), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			tg := newTarget(t)
			r := h.startWorker(t, worker.Config{Capacity: tt.capacity})
			for _, run := range []string{"run-a", "run-b"} {
				h.putState(t, run, barragev1.RunPhase_RUN_PHASE_RUNNING)
				h.assign(t, r.w.ID(), run, 0, shardSpec{url: tg.url("/" + run), qps: 50, conns: 1,
					duration: 1500 * time.Millisecond, startIn: 300 * time.Millisecond, slack: 10 * time.Second})
			}
			finals := map[string]*barragev1.Snapshot{}
			for _, run := range []string{"run-a", "run-b"} {
				snaps, _ := h.snapshots(t, run, 0, 15*time.Second)
				finals[run] = snaps[len(snaps)-1]
			}
			firstA, lastA, nA := tg.span("/run-a")
			firstB, lastB, nB := tg.span("/run-b")
			for run, n := range map[string]int64{"run-a": nA, "run-b": nB} {
				if got := finals[run].GetCount(); got != uint64(n) || n < 70 {
					t.Fatalf("%s: final count %d, target received %d; want about 75 each", run, got, n)
				}
			}
			overlap := !lastA.Before(firstB) && !lastB.Before(firstA)
			if overlap != tt.wantOverlap {
				t.Fatalf("capacity %d: shards overlapped = %v, want %v: run-a %s–%s, run-b %s–%s", tt.capacity, overlap, tt.wantOverlap,
					firstA.Format(time.StampMilli), lastA.Format(time.StampMilli), firstB.Format(time.StampMilli), lastB.Format(time.StampMilli))
			}
		})
	}
}

func TestMalformedAssignmentsAreTerminated(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tg := newTarget(t)
	r := h.startWorker(t, worker.Config{})
	const secret = "s3cret-token-value"
	h.publishRaw(t, r.w.ID(), "garbage/0", []byte{0xff, 0x01, 0x02})
	// A shard spec with connections out of range, carrying a secret header.
	h.putState(t, "run-bad", barragev1.RunPhase_RUN_PHASE_RUNNING)
	h.assign(t, r.w.ID(), "run-bad", 0, shardSpec{url: tg.url("/bad"), qps: 10, conns: -1,
		duration: time.Second, headers: []string{"Authorization: Bearer " + secret}})
	h.publishAssignment(t, r.w.ID(), &barragev1.Assignment{RunId: "run-bad", Shard: 1, ShardCount: 2, Spec: []byte(`{"url":`)})

	ctx := testCtx(t, 10*time.Second)
	waitFor(t, 5*time.Second, func() error {
		if n := strings.Count(r.logs.String(), "assignment rejected"); n != 3 {
			return fmt.Errorf("%d rejections logged, want 3", n)
		}
		st, err := h.js.Stream(ctx, wire.AssignStream)
		if err != nil {
			return err
		}
		info, err := st.Info(ctx)
		if err != nil {
			return err
		}
		if info.State.Msgs != 0 {
			return fmt.Errorf("%d assignments still in the stream, want all terminated", info.State.Msgs)
		}
		return nil
	})
	if strings.Contains(r.logs.String(), secret) {
		t.Fatalf("the logs show the spec's secret:\n%s", r.logs.String())
	}
	// The agent is still alive and takes the next assignment.
	h.putState(t, "run-good", barragev1.RunPhase_RUN_PHASE_RUNNING)
	h.assign(t, r.w.ID(), "run-good", 0, shardSpec{url: tg.url("/good"), qps: 50, conns: 1, duration: time.Second})
	snaps, _ := h.snapshots(t, "run-good", 0, 10*time.Second)
	if final := snaps[len(snaps)-1]; final.GetCount() < 45 {
		t.Fatalf("good run after bad ones: final count %d, want about 50", final.GetCount())
	}
	if _, _, n := tg.span("/bad"); n != 0 {
		t.Fatalf("the rejected assignment sent %d requests", n)
	}
}

func TestInProcessWorkerUsesGivenConnection(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tg := newTarget(t)
	r := h.startWorker(t, worker.Config{Conn: h.nc})
	const run = "run-conn"
	h.putState(t, run, barragev1.RunPhase_RUN_PHASE_RUNNING)
	h.assign(t, r.w.ID(), run, 0, shardSpec{url: tg.url("/c"), qps: 20, conns: 1, duration: time.Second})
	snaps, _ := h.snapshots(t, run, 0, 10*time.Second)
	if final := snaps[len(snaps)-1]; final.GetCount() < 18 {
		t.Fatalf("final count %d, want about 20", final.GetCount())
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	// The caller's connection is left open.
	if !h.nc.IsConnected() {
		t.Fatal("the worker closed the connection it was given")
	}
	if _, err := h.agents.Get(context.Background(), r.w.ID()); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("heartbeat after shutdown: %v", err)
	}
}

// TestRefusedTargetFailsTheShard: a target the run's policy refuses is
// never reached; the shard ends at once with a final snapshot that counts
// nothing and carries the refusal.
func TestRefusedTargetFailsTheShard(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tg := newTarget(t)
	r := h.startWorker(t, worker.Config{Capacity: 2})
	hostPort := strings.TrimPrefix(tg.srv.URL, "http://")
	tests := []struct {
		run   string
		allow []string
		deny  []string
		outer []string
		want  string
	}{
		{run: "run-not-listed", allow: []string{"10.0.0.0/8"}, want: "loopback address; add it to the project's target allow-list"},
		{run: "run-empty-list", allow: []string{}, want: "allow-list is empty"},
		{run: "run-control-plane", deny: []string{hostPort}, want: hostPort + " is a control-plane address"},
		// Listed by the project, but beyond the organisation's policy
		// (docs/security.md, "Target policy").
		{run: "run-outside-org", allow: []string{"127.0.0.0/8"}, outer: []string{"*"}, want: "outside the organisation's target policy"},
	}
	for _, tt := range tests {
		t.Run(tt.run, func(t *testing.T) {
			t.Parallel()
			h.putState(t, tt.run, barragev1.RunPhase_RUN_PHASE_RUNNING)
			h.assign(t, r.w.ID(), tt.run, 0, shardSpec{url: tg.url("/" + tt.run), qps: 50, conns: 1,
				duration: time.Second, allow: tt.allow, deny: tt.deny, outer: tt.outer})
			snaps, _ := h.snapshots(t, tt.run, 0, 10*time.Second)
			final := snaps[len(snaps)-1]
			if len(snaps) != 1 || final.GetCount() != 0 || !strings.Contains(final.GetError(), tt.want) {
				t.Fatalf("%d snapshots, final count %d error %q; want one final with count 0 and an error containing %q",
					len(snaps), final.GetCount(), final.GetError(), tt.want)
			}
			if _, _, n := tg.span("/" + tt.run); n != 0 {
				t.Errorf("target reached %d times, want 0", n)
			}
		})
	}
}

// TestClientSetupFailureReachesTheRun: when the protocol client cannot be
// set up (here a gRPC method looked up by reflection on a target that is no
// gRPC server), the shard's final snapshot carries the reason.
func TestClientSetupFailureReachesTheRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tg := newTarget(t)
	r := h.startWorker(t, worker.Config{Capacity: 1})
	const run = "run-grpc-method"
	h.putState(t, run, barragev1.RunPhase_RUN_PHASE_RUNNING)
	h.assign(t, r.w.ID(), run, 0, shardSpec{url: "grpc://" + strings.TrimPrefix(tg.srv.URL, "http://"), qps: 50, conns: 1,
		duration: time.Second, grpc: map[string]any{"mode": "method", "method": "fgrpc.PingServer/Ping"}})
	snaps, _ := h.snapshots(t, run, 0, 10*time.Second)
	final := snaps[len(snaps)-1]
	const want = "open connection 0: grpc method fgrpc.PingServer/Ping: server reflection:"
	if len(snaps) != 1 || final.GetCount() != 0 || !strings.Contains(final.GetError(), want) {
		t.Fatalf("%d snapshots, final count %d error %q; want one final with count 0 and an error containing %q",
			len(snaps), final.GetCount(), final.GetError(), want)
	}
}

// TestConnectionErrorIsLogged: a shard whose requests all fail at the TLS
// handshake (a certificate no root vouches for, verification on) logs why
// once, as barrage-agent load prints it.
func TestConnectionErrorIsLogged(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	r := h.startWorker(t, worker.Config{Capacity: 1})
	const run = "run-unverified"
	h.putState(t, run, barragev1.RunPhase_RUN_PHASE_RUNNING)
	h.assign(t, r.w.ID(), run, 0, shardSpec{url: srv.URL + "/", qps: 20, conns: 1, duration: time.Second})
	snaps, _ := h.snapshots(t, run, 0, 10*time.Second)
	final := snaps[len(snaps)-1]
	if final.GetCount() == 0 || final.GetErrors() != final.GetCount() {
		t.Fatalf("final count %d errors %d, want every request failed", final.GetCount(), final.GetErrors())
	}
	waitFor(t, 5*time.Second, func() error {
		logs := r.logs.String()
		if strings.Count(logs, "connection error (requests counted as code -1") != 1 || !strings.Contains(logs, "certificate signed by unknown authority") {
			return fmt.Errorf("the logs do not say why once:\n%s", logs)
		}
		return nil
	})
}

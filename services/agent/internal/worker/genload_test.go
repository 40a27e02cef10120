package worker

import (
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
)

// TestSendInterval checks the interval between a connection's sends that
// an interval snapshot reports: connections over the target rate at the
// interval's middle, none for a closed loop.
func TestSendInterval(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	ramp := &spec.Ramp{From: 0, To: 400, Over: spec.Duration(4 * time.Second)}
	tests := []struct {
		name string
		sp   spec.Spec
		from time.Duration
		want time.Duration
	}{
		{"open", spec.Spec{QPS: 200, Connections: 1, Pacing: spec.PacingOpen}, 0, 5 * time.Millisecond},
		{"fortio, 4 connections", spec.Spec{QPS: 100, Connections: 4, Pacing: spec.PacingFortio}, 0, 40 * time.Millisecond},
		{"closed", spec.Spec{QPS: 100, Connections: 4, Pacing: spec.PacingClosed}, 0, 0},
		{"as fast as possible", spec.Spec{Connections: 4, Pacing: spec.PacingOpen}, 0, 0},
		{"ramp, second 2 (150 qps at 1.5 s)", spec.Spec{Ramp: ramp, Connections: 3, Pacing: spec.PacingOpen}, time.Second, 20 * time.Millisecond},
		{"stages", spec.Spec{Stages: []spec.Stage{{QPS: 10, Duration: spec.Duration(time.Second)}, {QPS: 50, Duration: spec.Duration(time.Second)}},
			Connections: 1, Pacing: spec.PacingOpen}, time.Second, 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGenLoad(2, tt.sp, start, start)
			if got := g.sendInterval(start.Add(tt.from), start.Add(tt.from+time.Second)); got != tt.want {
				t.Errorf("send interval %s, want %s", got, tt.want)
			}
		})
	}
}

// TestGenLoadFill checks the generator fields of an interval snapshot
// (the lag p99 of its lag histogram, the cores, a CPU use that this
// process's real CPU time gives) and that a final one has none.
func TestGenLoadFill(t *testing.T) {
	t.Parallel()
	start := time.Now()
	g := newGenLoad(2, spec.Spec{QPS: 100, Connections: 2, Pacing: spec.PacingOpen}, start, start)
	lag := hist.New()
	for i := range 100 {
		lag.Record(time.Duration(i+1) * 100 * time.Microsecond) // 0.1 to 10 ms
	}
	burn := time.Now()
	for time.Since(burn) < 20*time.Millisecond { // spin, so that the process uses CPU
	}
	m := &barragev1.Snapshot{}
	g.fill(m, &engine.Snapshot{Start: start, End: start.Add(time.Second), Lag: lag}, time.Now())
	if m.GetCpuCores() != 2 || m.GetSendIntervalUs() != 20_000 {
		t.Errorf("cores %v, send interval %d µs; want 2 and 20000", m.GetCpuCores(), m.GetSendIntervalUs())
	}
	if want := uint64(lag.Percentile(99).Microseconds()); m.GetLagP99Us() != want || want < 9_800 {
		t.Errorf("lag p99 %d µs, the histogram's is %d µs (about 9.9 ms)", m.GetLagP99Us(), want)
	}
	if m.GetCpuUsed() <= 0 {
		t.Errorf("cpu used %v after a 20 ms spin", m.GetCpuUsed())
	}
	final := &barragev1.Snapshot{}
	g.fill(final, &engine.Snapshot{Final: true, Start: start, End: time.Now(), Lag: lag}, time.Now())
	if final.GetCpuCores() != 0 || final.GetLagP99Us() != 0 || final.GetSendIntervalUs() != 0 || final.GetCpuUsed() != 0 {
		t.Errorf("final snapshot carries generator figures: %v", final)
	}
}

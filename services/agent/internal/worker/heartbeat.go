package worker

import (
	"bytes"
	"cmp"
	"context"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/internal/procs"
)

// beat writes the agent's heartbeat. A failure is logged when it starts and
// when it ends, not at every beat. With credentials, the heartbeat carries
// their JWT, from which the API reads the pool and capacity cap they bind.
func (w *Worker) beat(ctx context.Context) {
	hb := &barragev1.Heartbeat{
		AgentId: w.id, Name: w.cfg.Name, Labels: w.cfg.Labels, Version: w.cfg.Version,
		Capacity: uint32(w.cfg.Capacity), Running: w.running(), RssBytes: residentBytes(),
		CpuPercent: w.cpu.percent(time.Now()), SentAt: timestamppb.Now(),
	}
	if w.creds != nil {
		hb.Credential = w.creds.JWT
	}
	data, err := proto.Marshal(hb)
	if err != nil {
		w.log.Error("encode heartbeat", slog.Any("error", err))
		return
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = w.agents.Put(pctx, w.id, data)
	switch {
	case err != nil && ctx.Err() == nil && !w.beatFailing:
		w.beatFailing = true
		w.log.Warn("heartbeat failed", slog.Any("error", err))
	case err == nil && w.beatFailing:
		w.beatFailing = false
		w.log.Info("heartbeat restored")
	}
}

// running lists the shards running now, in a stable order.
func (w *Worker) running() []*barragev1.ShardRef {
	w.mu.Lock()
	refs := make([]*barragev1.ShardRef, 0, len(w.shards))
	for k := range w.shards {
		refs = append(refs, &barragev1.ShardRef{RunId: k.run, Shard: k.shard})
	}
	w.mu.Unlock()
	slices.SortFunc(refs, func(a, b *barragev1.ShardRef) int {
		return cmp.Or(cmp.Compare(a.GetRunId(), b.GetRunId()), cmp.Compare(a.GetShard(), b.GetShard()))
	})
	return refs
}

// cpuMeter turns the process's CPU time into a percentage of one core over
// the time between two readings. It is used by one goroutine.
type cpuMeter struct {
	at  time.Time
	cpu time.Duration
}

// percent is the CPU use since the previous call (0 on the first).
func (m *cpuMeter) percent(now time.Time) float64 {
	cpu, ok := procs.ProcessCPU()
	if !ok {
		return 0
	}
	prevAt, prevCPU := m.at, m.cpu
	m.at, m.cpu = now, cpu
	wall := now.Sub(prevAt)
	if prevAt.IsZero() || wall <= 0 {
		return 0
	}
	return 100 * float64(cpu-prevCPU) / float64(wall)
}

// residentBytes is the process's resident memory from /proc/self/statm
// (0 where there is no such file).
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := bytes.Fields(b)
	if len(fields) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(string(fields[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}

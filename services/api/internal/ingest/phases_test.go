package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/resultformat"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// TestDecideMergesRequestPhases: the finals' request phase histograms
// merge across agents phase by phase; a phase no final had stays absent
// (here dns: every shard dialed an IP), and one only some finals had
// counts theirs alone (tls: one shard's target was https).
func TestDecideMergesRequestPhases(t *testing.T) {
	t.Parallel()
	id := uuid.New()
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	in := &Ingester{cfg: Config{Now: func() time.Time { return t0.Add(time.Hour) }}}
	in.cfg.Normalize()
	final := func(shard uint32, edit func(*barragev1.Snapshot)) runs.ShardState {
		var m barragev1.Snapshot
		if err := proto.Unmarshal(finalOf(t, id, shard, t0, time.Second, []int64{100, 200, 300}, []int64{90, 180, 270}), &m); err != nil {
			t.Fatal(err)
		}
		edit(&m)
		b, err := proto.Marshal(&m)
		if err != nil {
			t.Fatal(err)
		}
		return runs.ShardState{Index: int(shard), Status: runs.ShardDone, Final: b}
	}
	f, err := in.decide(runs.Settlement{Run: runs.Run{ID: id, Status: runs.Running}, Shards: []runs.ShardState{
		final(0, func(m *barragev1.Snapshot) {
			m.ConnectHdr, m.WaitingHdr, m.ReceivingHdr = encode(t, 40, 60), encode(t, 20_000, 21_000, 22_000), encode(t, 5, 5, 5)
		}),
		final(1, func(m *barragev1.Snapshot) {
			m.ConnectHdr, m.TlsHdr = encode(t, 80), encode(t, 900)
			m.WaitingHdr, m.ReceivingHdr = encode(t, 30_000, 31_000, 32_000), encode(t, 7, 7, 7)
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		count    int64
		min, max time.Duration
	}{
		resultformat.PhaseConnect:   {3, 40 * time.Microsecond, 80 * time.Microsecond},
		resultformat.PhaseTLS:       {1, 900 * time.Microsecond, 900 * time.Microsecond},
		resultformat.PhaseWaiting:   {6, 20 * time.Millisecond, 32 * time.Millisecond},
		resultformat.PhaseReceiving: {6, 5 * time.Microsecond, 7 * time.Microsecond},
	}
	for i, name := range resultformat.PhaseNames() {
		enc := f.Result.Phases[i]
		w, ok := want[name]
		if !ok {
			if enc != nil {
				t.Errorf("%s: %d bytes of histogram, want none", name, len(enc))
			}
			continue
		}
		h, err := hist.Decode(enc)
		if err != nil {
			t.Fatalf("%s histogram %q: %v", name, enc, err)
		}
		if h.Count() != w.count || !near(h.Min(), w.min) || !near(h.Max(), w.max) {
			t.Errorf("%s: count %d min %v max %v; want %d, %v..%v", name, h.Count(), h.Min(), h.Max(), w.count, w.min, w.max)
		}
	}
}

// near reports whether got is within HDR's 0.1 % of want.
func near(got, want time.Duration) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return d <= want/1000
}

// TestDecodeRefusesBadPhase: a phase histogram of another configuration
// makes the snapshot malformed, naming the field.
func TestDecodeRefusesBadPhase(t *testing.T) {
	t.Parallel()
	var m barragev1.Snapshot
	if err := proto.Unmarshal(finalOf(t, uuid.New(), 0, time.Now(), time.Second, []int64{1}, []int64{1}), &m); err != nil {
		t.Fatal(err)
	}
	m.WaitingHdr = []byte("not a histogram")
	b, err := proto.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	_, err = decodeSnapshot("", b)
	if err == nil || !strings.Contains(err.Error(), "waiting_hdr") {
		t.Fatalf("decode: %v, want an error naming waiting_hdr", err)
	}
}

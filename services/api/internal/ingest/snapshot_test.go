package ingest

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// encode returns the encoding of a histogram of the values (µs).
func encode(tb testing.TB, values ...int64) []byte {
	tb.Helper()
	h := hist.New()
	for _, v := range values {
		h.RecordMicros(v)
	}
	b, err := h.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// sample is a valid interval snapshot of run id, shard 1, seq 3.
// testAgent is the agent id of sample snapshots.
const testAgent = "0a0a0a0a-0000-4000-8000-000000000000"

func sample(tb testing.TB, id uuid.UUID) *barragev1.Snapshot {
	tb.Helper()
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	return &barragev1.Snapshot{
		RunId: id.String(), Shard: 1, AgentId: testAgent, Seq: 3,
		IntervalStart: timestamppb.New(start), IntervalEnd: timestamppb.New(start.Add(time.Second)),
		Count: 4, Errors: 1, RetCodes: map[string]uint64{"200": 3, "503": 1}, BytesSent: 40, BytesReceived: 90,
		ResponseHdr: encode(tb, 110, 220, 330, 4400), ServiceHdr: encode(tb, 100, 200, 300, 4000), LagHdr: encode(tb, 10, 20, 30, 400),
	}
}

func TestDecodeSnapshot(t *testing.T) {
	t.Parallel()
	id := uuid.New()
	subject := wire.SnapSubject(testAgent, id.String(), 1)
	tests := []struct {
		name    string
		edit    func(*barragev1.Snapshot)
		subject string
		// err is a part of the error; "" for a valid snapshot.
		err string
	}{
		{name: "interval", edit: func(*barragev1.Snapshot) {}},
		{name: "final without times", edit: func(s *barragev1.Snapshot) { s.Final, s.IntervalStart, s.IntervalEnd = true, nil, nil }},
		{name: "empty histograms", edit: func(s *barragev1.Snapshot) { s.LagHdr, s.ServiceHdr = nil, nil }},
		{name: "no subject to check", edit: func(*barragev1.Snapshot) {}, subject: "-"},
		{name: "bad run id", edit: func(s *barragev1.Snapshot) { s.RunId = "run-1" }, err: `run id "run-1"`},
		{name: "bad agent id", edit: func(s *barragev1.Snapshot) { s.AgentId = "agent-1" }, subject: "-", err: `agent id "agent-1"`},
		{name: "seq 0", edit: func(s *barragev1.Snapshot) { s.Seq = 0 }, err: "seq 0 out of range"},
		{name: "seq too big", edit: func(s *barragev1.Snapshot) { s.Seq = math.MaxUint64 }, err: "out of range"},
		{name: "count too big", edit: func(s *barragev1.Snapshot) { s.Count = math.MaxInt64 + 1 }, err: "count 9223372036854775808 out of range"},
		{name: "code count too big", edit: func(s *barragev1.Snapshot) { s.RetCodes["200"] = math.MaxUint64 }, err: `ret code "200"`},
		{name: "corrupt response", edit: func(s *barragev1.Snapshot) { s.ResponseHdr = []byte("HISTFAAA") }, err: "response_hdr histogram"},
		{name: "corrupt service", edit: func(s *barragev1.Snapshot) { s.ServiceHdr = []byte{1, 2, 3} }, err: "service_hdr histogram"},
		{name: "corrupt lag", edit: func(s *barragev1.Snapshot) { s.LagHdr = []byte("x") }, err: "lag_hdr histogram"},
		{name: "corrupt server", edit: func(s *barragev1.Snapshot) { s.ServerHdr = []byte("x") }, err: "server_hdr histogram"},
		{name: "interval without start", edit: func(s *barragev1.Snapshot) { s.IntervalStart = nil }, err: "without interval_start"},
		{name: "invalid start", edit: func(s *barragev1.Snapshot) { s.IntervalStart.Nanos = -1 }, err: "interval_start"},
		{name: "invalid end", edit: func(s *barragev1.Snapshot) { s.IntervalEnd.Seconds = math.MaxInt64 }, err: "interval_end"},
		{name: "wrong subject", edit: func(*barragev1.Snapshot) {}, subject: wire.SnapSubject(testAgent, id.String(), 2), err: "sent on subject"},
		{name: "other agent", edit: func(*barragev1.Snapshot) {}, subject: wire.SnapSubject("0b0b0b0b-0000-4000-8000-000000000000", id.String(), 1), err: "sent on subject"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := sample(t, id)
			tt.edit(m)
			b, err := proto.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			subj := subject
			switch tt.subject {
			case "":
			case "-":
				subj = ""
			default:
				subj = tt.subject
			}
			s, err := decodeSnapshot(subj, b)
			if tt.err != "" {
				if !errors.Is(err, errMalformed) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want a malformed snapshot error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.rec.RunID != id || s.rec.Shard != 1 || s.rec.Seq != 3 || s.rec.Final != m.GetFinal() || s.rec.Count != 4 ||
				s.rec.Errors != 1 || !bytes.Equal(s.rec.Encoded, b) || s.bytesSent != 40 || s.bytesReceived != 90 ||
				s.retCodes["200"] != 3 || s.retCodes["503"] != 1 {
				t.Errorf("decoded %+v", s)
			}
		})
	}
	if _, err := decodeSnapshot(subject, []byte{0xff, 0xff}); !errors.Is(err, errMalformed) {
		t.Errorf("garbage: err = %v, want malformed", err)
	}
}

func TestMergeInterval(t *testing.T) {
	t.Parallel()
	id := uuid.New()
	decode := func(m *barragev1.Snapshot) *snapshot {
		b, _ := proto.Marshal(m)
		s, err := decodeSnapshot("", b)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := decode(sample(t, id))
	other := sample(t, id)
	other.ResponseHdr, other.ServiceHdr, other.LagHdr = encode(t, 1000, 2000), encode(t, 900), nil
	other.Count, other.Errors, other.RetCodes = 2, 0, map[string]uint64{"200": 2}
	b := decode(other)

	cur := runs.Interval{RunID: id, Second: 5}
	var err error
	for _, s := range []*snapshot{a, b} {
		if cur, err = mergeAll(cur, []*snapshot{s}); err != nil {
			t.Fatal(err)
		}
	}
	if cur.RunID != id || cur.Second != 5 || cur.Count != 6 || cur.Errors != 1 || cur.BytesSent != 80 || cur.BytesReceived != 180 ||
		cur.RetCodes["200"] != 5 || cur.RetCodes["503"] != 1 || cur.Snapshots != 2 {
		t.Errorf("merged counters = %+v", cur)
	}
	want := map[string]struct {
		b      []byte
		values []int64
	}{
		"response": {cur.Response, []int64{110, 220, 330, 4400, 1000, 2000}},
		"service":  {cur.Service, []int64{100, 200, 300, 4000, 900}},
		"lag":      {cur.Lag, []int64{10, 20, 30, 400}},
	}
	for name, w := range want {
		got, err := hist.Decode(w.b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		exp, _ := hist.Decode(encode(t, w.values...))
		if got.Count() != exp.Count() || got.Percentile(50) != exp.Percentile(50) || got.Max() != exp.Max() || got.Min() != exp.Min() {
			t.Errorf("%s: count %d p50 %s max %s, want %d %s %s", name, got.Count(), got.Percentile(50), got.Max(), exp.Count(), exp.Percentile(50), exp.Max())
		}
	}
	// Response values 110 220 330 1000 2000 4400: p50 is the 3rd (330 µs),
	// p90 and p99 the 6th; the histogram holds them at 3 significant figures.
	if cur.P50US != 330 || cur.P90US != 4403 || cur.P99US != 4403 || cur.MaxUS != 4403 {
		t.Errorf("p50 %g p90 %g p99 %g max %g µs, want 330 4403 4403 4403", cur.P50US, cur.P90US, cur.P99US, cur.MaxUS)
	}
	// The service and lag figures stored beside the histograms are what a
	// reader decoding them would compute (runs.LatencyOf): 100 200 300 900
	// 4000 and 10 20 30 400 µs.
	for name, c := range map[string]struct {
		q   *runs.Quantiles
		enc []byte
		p50 float64
	}{"service": {cur.ServiceQ, cur.Service, 300}, "lag": {cur.LagQ, cur.Lag, 20}} {
		l, err := runs.LatencyOf(c.enc)
		if err != nil {
			t.Fatal(err)
		}
		if c.q == nil || *c.q != (runs.Quantiles{P50US: l.P50US, P90US: l.P90US, P99US: l.P99US, MaxUS: l.MaxUS}) || c.q.P50US != c.p50 {
			t.Errorf("%s: stored %+v, decoded p50 %g p90 %g p99 %g max %g, want p50 %g", name, c.q, l.P50US, l.P90US, l.P99US, l.MaxUS, c.p50)
		}
	}
}

func FuzzDecodeSnapshot(f *testing.F) {
	good, err := proto.Marshal(sample(f, uuid.MustParse("0195b7a4-7f3c-7d2e-9a57-31c1d1f0a001")))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte{})
	f.Add([]byte("\x0a\x03abc"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decodeSnapshot("", data)
		if err != nil {
			if !errors.Is(err, errMalformed) {
				t.Fatalf("error %v does not wrap errMalformed", err)
			}
			return
		}
		if s.rec.Seq < 1 || s.rec.Count < 0 || s.rec.Errors < 0 {
			t.Fatalf("accepted out-of-range snapshot %+v", s.rec)
		}
		iv, err := mergeAll(runs.Interval{}, []*snapshot{s})
		if err != nil {
			t.Fatalf("merging an accepted snapshot: %v", err)
		}
		if iv.Count != s.rec.Count || iv.Snapshots != 1 {
			t.Fatalf("merged count %d snapshots %d, want %d 1", iv.Count, iv.Snapshots, s.rec.Count)
		}
	})
}

package ingest_test

import (
	"maps"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/barrage-dev/barrage/pkg/hist"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// measured is what a shard measured over some time: the three latency
// histograms and the counters of a snapshot.
type measured struct {
	resp, svc, lag *hist.Histogram
	count, errors  int64
	codes          map[string]int64
	sent, recv     int64
	start, end     time.Time
}

func newMeasured() *measured {
	return &measured{resp: hist.New(), svc: hist.New(), lag: hist.New(), codes: map[string]int64{}}
}

// request records request i of second k of shard s: service time spread
// over 200 µs - 5.2 ms, lag 1 - 300 µs, every 13th request a 503.
func (m *measured) request(s, k, i int) {
	svc := int64(200 + (i*7919+s*104729+k*1299709)%5000)
	lag := int64(1 + (i*31+s*17+k*13)%300)
	m.svc.RecordMicros(svc)
	m.lag.RecordMicros(lag)
	m.resp.RecordMicros(svc + lag)
	m.count++
	m.sent += 100
	if i%13 == 0 {
		m.errors++
		m.codes["503"]++
		return
	}
	m.codes["200"]++
	m.recv += 250
}

// add merges o into m, widening its time span.
func (m *measured) add(t *testing.T, o *measured) {
	t.Helper()
	for _, p := range [][2]*hist.Histogram{{m.resp, o.resp}, {m.svc, o.svc}, {m.lag, o.lag}} {
		if err := p[0].Merge(p[1]); err != nil {
			t.Fatal(err)
		}
	}
	m.count += o.count
	m.errors += o.errors
	m.sent += o.sent
	m.recv += o.recv
	for c, n := range o.codes {
		m.codes[c] += n
	}
	if m.start.IsZero() || o.start.Before(m.start) {
		m.start = o.start
	}
	if o.end.After(m.end) {
		m.end = o.end
	}
}

// snapshot returns m as the wire message of shard's snapshot seq.
func (m *measured) snapshot(t *testing.T, runID uuid.UUID, shard uint32, seq uint64, final bool) *barragev1.Snapshot {
	t.Helper()
	enc := func(h *hist.Histogram) []byte {
		b, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	codes := map[string]uint64{}
	for c, n := range m.codes {
		codes[c] = uint64(n)
	}
	return &barragev1.Snapshot{
		RunId: runID.String(), Shard: shard, AgentId: planAgent, Seq: seq, Final: final,
		IntervalStart: timestamppb.New(m.start), IntervalEnd: timestamppb.New(m.end),
		Count: uint64(m.count), Errors: uint64(m.errors), RetCodes: codes,
		BytesSent: uint64(m.sent), BytesReceived: uint64(m.recv),
		ServiceHdr: enc(m.svc), ResponseHdr: enc(m.resp), LagHdr: enc(m.lag),
	}
}

// shardLoad is one simulated shard: its interval snapshots (seq 1..n)
// and its final (seq n+1), with what each of them holds.
type shardLoad struct {
	seconds   []*measured
	total     *measured
	intervals []*barragev1.Snapshot
	final     *barragev1.Snapshot
}

// load is a run's simulated shards.
type load struct {
	shards []shardLoad
}

// makeLoad simulates shards sending for seconds seconds from startAt.
// Shard s's intervals start s×3 ms after each second, except shard 2's
// first, which starts 4 ms early (its clock runs behind); second k of
// shard s holds 40 + 7s + 3k requests.
func makeLoad(t *testing.T, runID uuid.UUID, startAt time.Time, shards, seconds int) *load {
	t.Helper()
	l := &load{shards: make([]shardLoad, shards)}
	for s := range shards {
		sl := &l.shards[s]
		sl.total = newMeasured()
		for k := range seconds {
			m := newMeasured()
			m.start = startAt.Add(time.Duration(k)*time.Second + time.Duration(s)*3*time.Millisecond)
			if s == 2 && k == 0 {
				m.start = startAt.Add(-4 * time.Millisecond)
			}
			m.end = m.start.Add(time.Second)
			for i := range 40 + 7*s + 3*k {
				m.request(s, k, i)
			}
			sl.seconds = append(sl.seconds, m)
			sl.intervals = append(sl.intervals, m.snapshot(t, runID, uint32(s), uint64(k+1), false))
			sl.total.add(t, m)
		}
		if seconds == 0 { // an empty final, as an agent whose shard failed at once sends
			sl.total.start, sl.total.end = startAt, startAt
		}
		sl.final = sl.total.snapshot(t, runID, uint32(s), uint64(seconds+1), true)
	}
	return l
}

// second returns the merge of every shard's second k.
func (l *load) second(t *testing.T, k int) *measured {
	t.Helper()
	m := newMeasured()
	for _, sl := range l.shards {
		m.add(t, sl.seconds[k])
	}
	return m
}

// finals returns the merge of the given shards' finals.
func (l *load) finals(t *testing.T, shards ...int) *measured {
	t.Helper()
	m := newMeasured()
	for _, s := range shards {
		m.add(t, l.shards[s].total)
	}
	return m
}

// sameCodes reports whether the counts agree.
func sameCodes(a, b map[string]int64) bool { return maps.Equal(a, b) }

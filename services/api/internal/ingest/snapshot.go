package ingest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// errMalformed marks a snapshot that can never be stored.
var errMalformed = errors.New("malformed snapshot")

// snapshot is a received snapshot, checked and with its histograms decoded.
type snapshot struct {
	rec runs.SnapshotRecord
	// retCodes, bytesSent and bytesReceived are the counters of the
	// snapshot; rec holds count and errors.
	retCodes      map[string]int64
	bytesSent     int64
	bytesReceived int64
	// end is the end of the snapshot's interval; zero when not given.
	end time.Time
	// lat holds the response, service and lag histograms, in that order.
	lat latencies
	// server is the latency the target reported (server_hdr); nil when the
	// snapshot has none (the spec names no latency header).
	server *hist.Histogram
	// phases are the request phase histograms.
	phases phaseHists
	// failure says why the shard failed before sending (a final snapshot
	// only; at most maxFailure bytes); "" when it did not.
	failure string
	// entries are the request mix's entries, by index; nil without a mix.
	entries map[int]*entry
	// scenario is a scenario run's iterations and steps (steps.go); nil
	// for other runs.
	scenario *scenarioPart
	// timeline is a final snapshot's sample of the shard's requests, times
	// from the shard's start (rec.IntervalStart), drawn from timelineSeen.
	timeline     []runs.TimelineSample
	timelineSeen int64
	// limited is set when the interval snapshot says its agent was the
	// bottleneck (generatorLimited).
	limited bool
}

// maxFailure bounds the failure message kept from a snapshot.
const maxFailure = 1024

// latencies are the three histograms of a snapshot or a merge: response,
// service and lag.
type latencies [3]*hist.Histogram

// Indexes into latencies.
const (
	response = iota
	service
	lag
)

// newLatencies returns three empty histograms.
func newLatencies() latencies {
	return latencies{hist.New(), hist.New(), hist.New()}
}

// decodeSnapshot parses and checks a snapshot received on subject. Every
// error wraps errMalformed.
func decodeSnapshot(subject string, data []byte) (*snapshot, error) {
	var m barragev1.Snapshot
	if err := proto.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %w", errMalformed, err)
	}
	s, err := fromProto(&m)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errMalformed, err)
	}
	if subject != "" && subject != wire.SnapSubject(m.GetAgentId(), m.GetRunId(), m.GetShard()) {
		return nil, fmt.Errorf("%w: agent %s run %s shard %d sent on subject %s", errMalformed, m.GetAgentId(), m.GetRunId(), m.GetShard(), subject)
	}
	s.rec.Encoded = data
	return s, nil
}

// fromProto checks m and converts it.
func fromProto(m *barragev1.Snapshot) (*snapshot, error) {
	id, err := uuid.Parse(m.GetRunId())
	if err != nil {
		return nil, fmt.Errorf("run id %q: %w", m.GetRunId(), err)
	}
	agent, err := uuid.Parse(m.GetAgentId())
	if err != nil {
		return nil, fmt.Errorf("agent id %q: %w", m.GetAgentId(), err)
	}
	if m.GetSeq() < 1 || m.GetSeq() > math.MaxInt64 {
		return nil, fmt.Errorf("seq %d out of range", m.GetSeq())
	}
	if m.GetShard() > math.MaxInt32 {
		return nil, fmt.Errorf("shard %d out of range", m.GetShard())
	}
	s := &snapshot{rec: runs.SnapshotRecord{RunID: id, Shard: int(m.GetShard()), Agent: agent, Seq: int64(m.GetSeq()), Final: m.GetFinal()}}
	s.limited = generatorLimited(m)
	if msg := m.GetError(); msg != "" && s.rec.Final {
		s.failure = strings.ToValidUTF8(msg[:min(len(msg), maxFailure)], "")
	}
	if err := s.readInterval(m); err != nil {
		return nil, err
	}
	counters := []struct {
		name string
		v    uint64
		dst  *int64
	}{
		{"count", m.GetCount(), &s.rec.Count}, {"errors", m.GetErrors(), &s.rec.Errors},
		{"bytes_sent", m.GetBytesSent(), &s.bytesSent}, {"bytes_received", m.GetBytesReceived(), &s.bytesReceived},
	}
	for _, c := range counters {
		if c.v > math.MaxInt64 {
			return nil, fmt.Errorf("%s %d out of range", c.name, c.v)
		}
		*c.dst = int64(c.v)
	}
	s.retCodes = make(map[string]int64, len(m.GetRetCodes()))
	for code, n := range m.GetRetCodes() {
		if n > math.MaxInt64 {
			return nil, fmt.Errorf("ret code %q count %d out of range", code, n)
		}
		s.retCodes[code] = int64(n)
	}
	for i, b := range [3][]byte{m.GetResponseHdr(), m.GetServiceHdr(), m.GetLagHdr()} {
		if s.lat[i], err = decodeHist(b); err != nil {
			return nil, fmt.Errorf("%s histogram: %w", latencyName(i), err)
		}
	}
	if b := m.GetServerHdr(); len(b) > 0 {
		if s.server, err = hist.Decode(b); err != nil {
			return nil, fmt.Errorf("server_hdr histogram: %w", err)
		}
	}
	if s.phases, err = decodePhases(m); err != nil {
		return nil, err
	}
	if s.entries, err = entriesFromProto(m.GetEntries()); err != nil {
		return nil, err
	}
	if s.scenario, err = scenarioFromProto(m); err != nil {
		return nil, err
	}
	if s.timeline, s.timelineSeen, err = timelineFromProto(m); err != nil {
		return nil, err
	}
	if s.rec.WrittenURLs, err = writtenURLsFromProto(m.GetWrittenUrls()); err != nil {
		return nil, err
	}
	if !s.rec.Final {
		s.rec.Summary = shardFigures(m, s)
	}
	return s, nil
}

// readInterval checks and keeps the interval's start (required of an
// interval snapshot) and end.
func (s *snapshot) readInterval(m *barragev1.Snapshot) error {
	if ts := m.GetIntervalStart(); ts != nil {
		if err := ts.CheckValid(); err != nil {
			return fmt.Errorf("interval_start: %w", err)
		}
		s.rec.IntervalStart = ts.AsTime()
	} else if !s.rec.Final {
		return errors.New("interval snapshot without interval_start")
	}
	if ts := m.GetIntervalEnd(); ts != nil {
		if err := ts.CheckValid(); err != nil {
			return fmt.Errorf("interval_end: %w", err)
		}
		s.end = ts.AsTime()
	}
	return nil
}

// shardFigures returns the figures of an interval snapshot kept per shard
// and second (runs.ShardFigures): its counts, rate, a few percentiles of
// its histograms and its agent's CPU.
func shardFigures(m *barragev1.Snapshot, s *snapshot) *runs.ShardFigures {
	f := &runs.ShardFigures{Count: s.rec.Count, Errors: s.rec.Errors, CPUUsed: finite(m.GetCpuUsed()), CPUCores: finite(m.GetCpuCores())}
	f.QPS = float64(s.rec.Count)
	if d := s.end.Sub(s.rec.IntervalStart); !s.end.IsZero() && d > 0 {
		f.QPS = float64(s.rec.Count) / d.Seconds()
	}
	if s.lat[service].Count() > 0 {
		q := s.lat[service].Percentiles([]float64{50, 99}) // one read of the histogram
		f.ServiceP50US, f.ServiceP99US = micros(q[0].Value), micros(q[1].Value)
	}
	if s.lat[response].Count() > 0 {
		f.ResponseP99US = micros(s.lat[response].Percentile(99))
	}
	f.LagP99US = float64(m.GetLagP99Us())
	if f.LagP99US == 0 && s.lat[lag].Count() > 0 {
		f.LagP99US = micros(s.lat[lag].Percentile(99))
	}
	return f
}

// finite returns v, or 0 when it is NaN or infinite.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// latencyName names histogram i of latencies as the wire message does.
func latencyName(i int) string {
	switch i {
	case response:
		return "response_hdr"
	case service:
		return "service_hdr"
	default:
		return "lag_hdr"
	}
}

// decodeHist decodes a histogram encoding; empty is an empty histogram.
func decodeHist(b []byte) (*hist.Histogram, error) {
	if len(b) == 0 {
		return hist.New(), nil
	}
	return hist.Decode(b)
}

// record stores one snapshot: a final on its own, an interval as a batch
// of one (recordIntervals).
func (in *Ingester) record(ctx context.Context, s *snapshot) (runs.Recorded, error) {
	if s.rec.Final {
		return in.cfg.Store.RecordFinal(ctx, s.rec)
	}
	out, err := in.recordIntervals(ctx, []runs.SnapshotRecord{s.rec}, []*snapshot{s})
	if err != nil {
		return runs.Recorded{}, err
	}
	return out[0], nil
}

// recordIntervals stores interval snapshots (recs[i] is snaps[i]'s record)
// in one transaction: the store locks the seconds they fall in, and each
// second is merged here once, whatever the number of its new snapshots,
// and written back when the batch commits.
func (in *Ingester) recordIntervals(ctx context.Context, recs []runs.SnapshotRecord, snaps []*snapshot) ([]runs.Recorded, error) {
	b, err := in.cfg.Store.BeginIntervals(ctx, recs)
	if err != nil {
		return nil, err
	}
	defer b.Rollback()
	seconds := b.Seconds()
	merged := make([]runs.Interval, len(seconds))
	for i := range seconds {
		sec := &seconds[i]
		sel := make([]*snapshot, len(sec.Fresh))
		for j, k := range sec.Fresh {
			sel[j] = snaps[k]
		}
		if merged[i], err = mergeAll(sec.Stored, sel); err != nil {
			return nil, fmt.Errorf("merge second %d of run %s: %w", sec.Stored.Second, sec.Stored.RunID, err)
		}
	}
	if err := b.Commit(merged); err != nil {
		return nil, err
	}
	return b.Recorded(), nil
}

// mergeAll returns the second cur with every snapshot of snaps added: its
// stored histograms are decoded and encoded once whatever len(snaps).
func mergeAll(cur runs.Interval, snaps []*snapshot) (runs.Interval, error) {
	next := cur
	stored := [3]*[]byte{&next.Response, &next.Service, &next.Lag}
	quantiles := [3]*runs.Quantiles{{}, {}, {}}
	for i, b := range stored {
		h, err := decodeHist(*b)
		if err != nil {
			return runs.Interval{}, fmt.Errorf("stored %s: %w", latencyName(i), err)
		}
		for _, s := range snaps {
			if err := h.Merge(s.lat[i]); err != nil {
				return runs.Interval{}, err
			}
		}
		if *b, err = h.Encode(); err != nil {
			return runs.Interval{}, err
		}
		*quantiles[i] = quantilesOf(h)
	}
	q := quantiles[response]
	next.P50US, next.P90US, next.P99US, next.MaxUS = q.P50US, q.P90US, q.P99US, q.MaxUS
	next.ServiceQ, next.LagQ = quantiles[service], quantiles[lag]
	next.RetCodes = maps.Clone(cur.RetCodes)
	for _, s := range snaps {
		next.Count += s.rec.Count
		next.Errors += s.rec.Errors
		next.BytesSent += s.bytesSent
		next.BytesReceived += s.bytesReceived
		next.RetCodes = addCodes(next.RetCodes, s.retCodes)
		next.Snapshots++
		next.GeneratorLimited = next.GeneratorLimited || s.limited
		if sc := s.scenario; sc != nil {
			next.Iterations.Started += sc.started
			next.Iterations.Completed += sc.completed
			next.Iterations.Failed += sc.failed
		}
	}
	return next, nil
}

// quantilesOf returns the p50, p90, p99 and max of h.
func quantilesOf(h *hist.Histogram) runs.Quantiles {
	q := h.Percentiles([]float64{50, 90, 99})
	return runs.Quantiles{P50US: micros(q[0].Value), P90US: micros(q[1].Value), P99US: micros(q[2].Value), MaxUS: micros(h.Max())}
}

// addCodes adds the counts of add to dst, which may be nil, and returns it.
func addCodes(dst, add map[string]int64) map[string]int64 {
	if dst == nil {
		dst = make(map[string]int64, len(add))
	}
	for code, n := range add {
		dst[code] += n
	}
	return dst
}

// micros returns d in microseconds.
func micros(d time.Duration) float64 {
	return float64(d) / float64(time.Microsecond)
}

package worker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// How hard a snapshot publish is retried: an interval snapshot must not hold
// the shard up (a lost one is logged and the shard goes on), the final one
// is worth waiting for. Each attempt waits twice as long as the one before
// (publishSnap), and an interval snapshot's first attempt at least twice as
// long as the last ack took (snapSink.ackWait): a quick retry when a
// publish was lost on a near NATS, and on a far one (200 ms away each way,
// TestAgentsSlowLossyLinkToNATS) acks that come within the second rather
// than attempts that end before them.
const (
	intervalBudget  = time.Second
	intervalAttempt = 300 * time.Millisecond
	finalBudget     = 30 * time.Second
	finalAttempt    = 2 * time.Second
)

// maxBacklog bounds the interval snapshots a shard keeps for a later
// publish: a minute of them. Beyond it the oldest is dropped.
const maxBacklog = 60

// pendingSnap is an interval snapshot not yet in JetStream.
type pendingSnap struct {
	seq  uint64
	data []byte
}

// urlBytesPerSnapshot bounds the written URLs of one snapshot, well within
// NATS's default 1 MiB message: at 50 bytes a URL, 10,000 writes a second
// per shard go through, and a burst above that waits for the next
// snapshots.
const urlBytesPerSnapshot = 512 << 10

// snapSink publishes a shard's engine snapshots to JetStream.
type snapSink struct {
	w        *Worker
	key      shardKey
	slot     int
	codeName func(int32) string
	log      *slog.Logger
	// load measures the agent's CPU and the shard's send lag for the
	// interval snapshots; nil sends none.
	load *genLoad
	// published counts the snapshots handed to the sink.
	published int
	// failure is the error sent with the final snapshot ("" for none).
	failure string
	// backlog holds, oldest first, the interval snapshots whose publish
	// failed within its budget (say while a NATS cluster elects the
	// snapshot stream's new leader, when a publish finds no stream to
	// answer): each later publish sends them first, in order, so the
	// run's seconds still add up (docs/reliability.md §9).
	backlog []pendingSnap
	// ackWait is twice as long as the last interval snapshot's ack took.
	ackWait time.Duration
	// counted and erred are the requests and errors already added to the
	// agent's metrics: the final snapshot adds the rest of its totals.
	counted, erred int64
	// extra, when set, adds fields to the next encoded message (a
	// scenario shard's steps, scenario.go).
	extra func(*barragev1.Snapshot)
}

// observe adds snap's figures to the agent's metrics: an interval's own,
// or what the final snapshot's totals hold beyond the intervals'.
func (s *snapSink) observe(snap *engine.Snapshot) {
	m := s.w.cfg.Metrics
	count, errs := snap.Count, snap.Errors
	if snap.Final {
		count, errs = max(count-s.counted, 0), max(errs-s.erred, 0)
	} else if snap.Lag != nil {
		m.PacingLag(s.slot, snap.Lag.Percentile(99).Seconds())
	}
	s.counted += count
	s.erred += errs
	m.Requests(s.slot, count, errs)
}

// Publish implements engine.Sink. It fails only for the final snapshot.
// An interval snapshot that cannot be published within its budget is kept
// in the backlog; the final one waits for the backlog to go first.
func (s *snapSink) Publish(_ context.Context, snap *engine.Snapshot) error {
	s.published++
	s.observe(snap)
	data, err := s.encode(snap)
	if err != nil {
		if snap.Final {
			return fmt.Errorf("final snapshot %d: %w", snap.Seq, err)
		}
		s.log.Warn("interval snapshot lost", slog.Uint64("seq", snap.Seq), slog.Any("error", err))
		s.w.cfg.Metrics.SnapshotLost()
		return nil
	}
	budget, attempt := intervalBudget, max(intervalAttempt, s.ackWait)
	if snap.Final {
		budget, attempt = finalBudget, finalAttempt
	}
	deadline := time.Now().Add(budget)
	s.backlog = append(s.backlog, pendingSnap{seq: snap.Seq, data: data})
	for len(s.backlog) > 0 {
		p := s.backlog[0]
		var took time.Duration
		if took, err = s.w.publishSnap(s.key, p.seq, p.data, time.Until(deadline), attempt); err != nil {
			break
		}
		if !snap.Final {
			s.ackWait = 2 * took
		}
		s.backlog = s.backlog[1:]
	}
	switch {
	case err == nil:
		return nil
	case snap.Final:
		for _, p := range s.backlog[:len(s.backlog)-1] {
			s.log.Warn("interval snapshot lost", slog.Uint64("seq", p.seq), slog.Any("error", err))
			s.w.cfg.Metrics.SnapshotLost()
		}
		s.w.cfg.Metrics.SnapshotLost()
		s.backlog = nil
		return fmt.Errorf("final snapshot %d: %w", snap.Seq, err)
	default:
		for len(s.backlog) > maxBacklog {
			s.log.Warn("interval snapshot lost", slog.Uint64("seq", s.backlog[0].seq), slog.Any("error", err))
			s.w.cfg.Metrics.SnapshotLost()
			s.backlog = s.backlog[1:]
		}
		s.log.Warn("interval snapshot held for a later publish", slog.Uint64("seq", snap.Seq),
			slog.Int("backlog", len(s.backlog)), slog.Any("error", err))
		return nil
	}
}

// publishFailed sends the final snapshot of a shard that failed before it
// sent anything, with cause (when not nil) as its error for the run.
func (s *snapSink) publishFailed(cause error) {
	now := time.Now()
	snap := &engine.Snapshot{
		Seq: 1, Final: true, Start: now, End: now,
		Service: hist.New(), Response: hist.New(), Lag: hist.New(),
	}
	if cause != nil {
		s.failure = cause.Error()
	}
	if err := s.Publish(context.Background(), snap); err != nil {
		s.log.Warn("empty final snapshot lost", slog.Any("error", err))
	}
}

// errorFor is the failure to send with snap: only on the final one.
func (s *snapSink) errorFor(snap *engine.Snapshot) string {
	if !snap.Final {
		return ""
	}
	return s.failure
}

// encode turns an engine snapshot into the wire message.
func (s *snapSink) encode(snap *engine.Snapshot) ([]byte, error) {
	codes := make(map[string]uint64, len(snap.Codes))
	for code, n := range snap.Codes {
		codes[s.codeName(code)] += uint64(n)
	}
	var hdrs [4][]byte
	for i, h := range [4]*hist.Histogram{snap.Service, snap.Response, snap.Lag, snap.Server} {
		if h == nil {
			continue // no latency header: no server histogram
		}
		b, err := h.Encode()
		if err != nil {
			return nil, fmt.Errorf("encode histogram: %w", err)
		}
		hdrs[i] = b
	}
	entries, err := s.encodeEntries(snap.Entries)
	if err != nil {
		return nil, err
	}
	phases, err := encodePhases(&snap.Phases)
	if err != nil {
		return nil, err
	}
	m := &barragev1.Snapshot{
		RunId: s.key.run, Shard: s.key.shard, AgentId: s.w.id, Seq: snap.Seq, Final: snap.Final,
		IntervalStart: timestamppb.New(snap.Start), IntervalEnd: timestamppb.New(snap.End),
		Count: uint64(snap.Count), Errors: uint64(snap.Errors), RetCodes: codes,
		BytesSent: uint64(snap.Sent), BytesReceived: uint64(snap.Received),
		ServiceHdr: hdrs[0], ResponseHdr: hdrs[1], LagHdr: hdrs[2], ServerHdr: hdrs[3],
		Error: s.errorFor(snap), Entries: entries,
		Timeline: s.encodeTimeline(snap.Timeline), TimelineSeen: uint64(max(snap.TimelineSeen, 0)),
		WrittenUrls: snap.WrittenURLs,
		DnsHdr:      phases[request.PhaseDNS], ConnectHdr: phases[request.PhaseConnect], TlsHdr: phases[request.PhaseTLS],
		WaitingHdr: phases[request.PhaseWaiting], ReceivingHdr: phases[request.PhaseReceiving],
	}
	if s.extra != nil {
		s.extra(m)
	}
	if s.load != nil {
		s.load.fill(m, snap, time.Now())
		if !snap.Final {
			limited := wire.GeneratorLimited(m.GetCpuUsed(), m.GetCpuCores(), m.GetLagP99Us(), m.GetSendIntervalUs())
			s.w.cfg.Metrics.Generator(s.slot, m.GetCpuUsed(), m.GetCpuCores(), limited, snap.End.Sub(snap.Start).Seconds())
		}
	}
	return proto.Marshal(m)
}

// encodePhases encodes the request phase histograms that recorded
// anything; the others stay empty on the wire.
func encodePhases(ph *engine.PhaseHists) ([request.NumPhases][]byte, error) {
	var out [request.NumPhases][]byte
	for p := range request.NumPhases {
		h := ph.Recorded(request.Phase(p))
		if h == nil {
			continue
		}
		b, err := h.Encode()
		if err != nil {
			return out, fmt.Errorf("encode %s histogram: %w", request.Phase(p), err)
		}
		out[p] = b
	}
	return out, nil
}

// encodeTimeline turns the final snapshot's timeline into its wire form.
func (s *snapSink) encodeTimeline(samples []engine.TimelineSample) []*barragev1.TimelineSample {
	if len(samples) == 0 {
		return nil
	}
	out := make([]*barragev1.TimelineSample, len(samples))
	buf := make([]barragev1.TimelineSample, len(samples)) // one allocation for them all
	for i, t := range samples {
		m := &buf[i]
		m.IntendedUs, m.SentUs, m.LatencyUs = t.Intended.Microseconds(), t.Sent.Microseconds(), t.Latency.Microseconds()
		m.Code, m.Ok = s.codeName(t.Code), t.OK
		if t.Entry >= 0 {
			m.Entry = uint32(t.Entry) + 1
		}
		out[i] = m
	}
	return out
}

// encodeEntries turns a request mix's entries into their wire form.
func (s *snapSink) encodeEntries(entries []*engine.EntrySnapshot) ([]*barragev1.EntryResult, error) {
	out := make([]*barragev1.EntryResult, 0, len(entries))
	for i, e := range entries {
		codes := make(map[string]uint64, len(e.Codes))
		for code, n := range e.Codes {
			codes[s.codeName(code)] += uint64(n)
		}
		service, err := e.Service.Encode()
		if err != nil {
			return nil, fmt.Errorf("encode entry %d histogram: %w", i, err)
		}
		response, err := e.Response.Encode()
		if err != nil {
			return nil, fmt.Errorf("encode entry %d histogram: %w", i, err)
		}
		out = append(out, &barragev1.EntryResult{
			Index: uint32(i), Count: uint64(e.Count), Errors: uint64(e.Errors), RetCodes: codes,
			BytesSent: uint64(e.Sent), BytesReceived: uint64(e.Received), ServiceHdr: service, ResponseHdr: response,
		})
	}
	return out, nil
}

// publishSnap publishes one snapshot, retrying for up to budget (the first
// attempt bounded by attempt, each later one by twice the one before) and
// no longer than the shutdown allows, and returns how long the attempt
// that was acked took. The message id makes a retry of a publish that did
// land harmless.
func (w *Worker) publishSnap(key shardKey, seq uint64, data []byte, budget, attempt time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(w.flush, max(budget, 0))
	defer cancel()
	subject, id := wire.SnapSubject(w.id, key.run, key.shard), wire.SnapMsgID(key.run, key.shard, seq)
	wait := 50 * time.Millisecond
	for n := 1; ; n++ {
		actx, acancel := context.WithTimeout(ctx, attempt)
		sent := time.Now()
		_, err := w.js.Publish(actx, subject, data, jetstream.WithMsgID(id))
		acancel()
		if err == nil {
			took := time.Since(sent)
			w.cfg.Metrics.Published(took.Seconds())
			return took, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, fmt.Errorf("publish %s after %d attempts: %w", id, n, err)
		case <-t.C:
		}
		w.cfg.Metrics.PublishRetried()
		wait = min(2*wait, time.Second)
		attempt *= 2
	}
}

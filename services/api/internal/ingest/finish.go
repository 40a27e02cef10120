package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/barrage-dev/barrage/pkg/hist"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// finish ends the run when every shard is done or lost, then tells its
// agents (run state done) and the live hubs. Failures are logged: the
// sweeper finds the run again on its next pass.
func (in *Ingester) finish(ctx context.Context, id uuid.UUID) {
	run, finished, err := in.cfg.Store.FinishRun(ctx, id, in.decide)
	if err != nil {
		if ctx.Err() == nil {
			in.cfg.Log.Warn("ingest: finish run; will retry", slog.String("run", id.String()), slog.Any("error", err))
		}
		return
	}
	if !finished {
		return
	}
	attrs := []any{
		slog.String("run", id.String()), slog.String("status", string(run.Status)), slog.Bool("degraded", run.Degraded),
	}
	if run.Summary != nil {
		attrs = append(attrs, slog.Int64("count", run.Summary.Count), slog.Float64("qps", run.Summary.QPS))
	}
	if run.Error != "" {
		attrs = append(attrs, slog.String("error", run.Error))
	}
	in.cfg.Log.Info("run finished", attrs...)
	if err := in.putDone(ctx, id); err != nil {
		in.cfg.Log.Warn("ingest: tell agents the run is done", slog.String("run", id.String()), slog.Any("error", err))
	}
	in.emit(live.Event{RunID: id, Final: true, Status: run.Status})
}

// putDone records the done phase of a run in the run-state bucket, where
// agents watch it.
func (in *Ingester) putDone(ctx context.Context, id uuid.UUID) error {
	b, err := proto.Marshal(&barragev1.RunState{
		RunId: id.String(), Phase: barragev1.RunPhase_RUN_PHASE_DONE, UpdatedAt: timestamppb.New(in.cfg.Now()),
	})
	if err != nil {
		return fmt.Errorf("encode run state: %w", err)
	}
	if _, err := in.states.Put(ctx, id.String(), b); err != nil {
		return fmt.Errorf("put state of run %s: %w", id, err)
	}
	return nil
}

// decide merges the final snapshots of a settled run and says how it
// ends (docs/architecture.md §4): failed when every shard was lost or failed (a
// final snapshot with an error, whose message becomes the run's error), canceled when it
// was stopped before any request completed, completed otherwise, and
// degraded when a shard is missing, failed with its result when
// abort_if_rate_not_held stopped it; then judges it by its thresholds
// (judge). The summary's latencies are of the
// response time when the run paced an open loop (a target rate), of the
// service time when it ran as fast as it could.
func (in *Ingester) decide(st runs.Settlement) (runs.Finish, error) {
	m := merged{lat: newLatencies(), codes: map[string]int64{}}
	var failures []string
	for _, sh := range st.Shards {
		if sh.Status != runs.ShardDone || len(sh.Final) == 0 {
			m.lost++
			continue
		}
		s, err := decodeSnapshot("", sh.Final)
		if err != nil { // checked when it arrived; count the shard lost rather than never finish
			in.cfg.Log.Error("ingest: stored final snapshot unreadable; shard counted lost",
				slog.String("run", st.Run.ID.String()), slog.Int("shard", sh.Index), slog.Any("error", err))
			m.lost++
			continue
		}
		if s.failure != "" { // the agent could not run it (e.g. the target was refused)
			m.lost++
			failures = append(failures, fmt.Sprintf("shard %d: %s", sh.Index, s.failure))
			continue
		}
		if err := m.add(s); err != nil {
			return runs.Finish{}, fmt.Errorf("merge shard %d: %w", sh.Index, err)
		}
	}
	f := runs.Finish{At: in.cfg.Now().UTC(), Degraded: m.lost > 0}
	if m.shards == 0 {
		f.Status = runs.Failed
		f.Error = fmt.Sprintf("all %d shards lost: no final snapshot arrived (agent gone or deadline missed)", len(st.Shards))
		if len(failures) > 0 {
			f.Error = fmt.Sprintf("%d of %d shards failed: %s", len(failures), len(st.Shards), strings.Join(failures, "; "))
		}
		judge(st, &m, &f)
		return f, nil
	}
	if st.SentBeforeLost() {
		used, err := m.withLostShards(st.Seconds, st.LostCount())
		if err != nil {
			return runs.Finish{}, fmt.Errorf("merge the seconds of lost shards: %w", err)
		}
		if !used {
			in.cfg.Log.Warn("ingest: a lost shard's seconds left out: the stored seconds count fewer requests than the finals and the lost shards",
				slog.String("run", st.Run.ID.String()))
		}
	}
	res, err := m.result(st.Run.ID)
	if err != nil {
		return runs.Finish{}, err
	}
	res.GeneratorLimitedSeconds = st.LimitedSeconds
	f.Result, f.StartedAt = res, m.busy.start
	if f.StartedAt.IsZero() {
		f.StartedAt = m.all.start
	}
	f.Timeline = mergeTimelines(st.Run.ID, f.StartedAt, m.timelines)
	if st.Run.Status == runs.Stopping && m.count == 0 {
		f.Status = runs.Canceled
		return f, nil
	}
	f.Status = runs.Completed
	if st.Run.AbortedBy == runs.RateNotHeld { // stopped for not holding its rate: a failure, with what ran
		f.Status, f.Error = runs.Failed, st.Run.Error
	}
	f.Summary = m.summary(st.Run.Spec.PeakQPS() > 0)
	judge(st, &m, &f)
	return f, nil
}

// span is the time a set of snapshots covers.
type span struct{ start, end time.Time }

// add widens sp to cover [start, end]; zero times are skipped.
func (sp *span) add(start, end time.Time) {
	if !start.IsZero() && (sp.start.IsZero() || start.Before(sp.start)) {
		sp.start = start
	}
	if !end.IsZero() && end.After(sp.end) {
		sp.end = end
	}
}

// length is the span's duration, 0 when it is not known.
func (sp *span) length() time.Duration {
	if sp.start.IsZero() || sp.end.IsZero() || !sp.end.After(sp.start) {
		return 0
	}
	return sp.end.Sub(sp.start)
}

// merged is the sum of a run's final snapshots.
type merged struct {
	lat latencies
	// server is the merge of the finals' server histograms; nil when none
	// had one.
	server *hist.Histogram
	// phases merge the finals' request phase histograms.
	phases                              phaseHists
	codes                               map[string]int64
	count, errors, bytesSent, bytesRecv int64
	shards, lost                        int
	// busy covers the finals that counted requests; all covers every final
	// (an agent whose shard failed at once sends an empty final).
	busy, all span
	// entries merges the request mix's entries, by index.
	entries map[int]*entry
	// scenario merges a scenario run's iterations and steps.
	scenario *scenarioPart
	// timelines are the finals' samples of their requests.
	timelines []timelinePart
}

// add merges one final snapshot.
func (m *merged) add(s *snapshot) error {
	for i, h := range s.lat {
		if err := m.lat[i].Merge(h); err != nil {
			return err
		}
	}
	if s.server != nil {
		if m.server == nil {
			m.server = hist.New()
		}
		if err := m.server.Merge(s.server); err != nil {
			return err
		}
	}
	if err := mergePhases(&m.phases, &s.phases); err != nil {
		return err
	}
	addCodes(m.codes, s.retCodes)
	var err error
	if m.entries, err = mergeEntries(m.entries, s.entries); err != nil {
		return err
	}
	if m.scenario, err = mergeScenario(m.scenario, s.scenario); err != nil {
		return err
	}
	if len(s.timeline) > 0 {
		m.timelines = append(m.timelines, timelinePart{start: s.rec.IntervalStart, samples: s.timeline, seen: s.timelineSeen})
	}
	m.count += s.rec.Count
	m.errors += s.rec.Errors
	m.bytesSent += s.bytesSent
	m.bytesRecv += s.bytesReceived
	m.shards++
	m.all.add(s.rec.IntervalStart, s.end)
	if s.rec.Count > 0 {
		m.busy.add(s.rec.IntervalStart, s.end)
	}
	return nil
}

// duration is how long the run sent requests: from the earliest start to
// the latest end of its finals that counted any.
func (m *merged) duration() time.Duration {
	if d := m.busy.length(); d > 0 {
		return d
	}
	return m.all.length()
}

// result returns the merged result row of run id.
func (m *merged) result(id uuid.UUID) (*runs.Result, error) {
	var enc [3][]byte
	for i, h := range m.lat {
		b, err := h.Encode()
		if err != nil {
			return nil, err
		}
		enc[i] = b
	}
	var server []byte
	if m.server != nil {
		b, err := m.server.Encode()
		if err != nil {
			return nil, err
		}
		server = b
	}
	phases, err := encodePhases(&m.phases)
	if err != nil {
		return nil, err
	}
	entries, err := entryResults(m.entries)
	if err != nil {
		return nil, err
	}
	scen, err := scenarioResult(m.scenario)
	if err != nil {
		return nil, err
	}
	return &runs.Result{
		Phases: phases,
		RunID:  id, Response: enc[response], Service: enc[service], Lag: enc[lag], Server: server, RetCodes: m.codes,
		Count: m.count, Errors: m.errors, BytesSent: m.bytesSent, BytesReceived: m.bytesRecv,
		Duration: m.duration(), Shards: m.shards, LostShards: m.lost, Entries: entries,
		Scenario: scen,
	}, nil
}

// summary returns the run's summary columns, with the latencies of the
// response histogram when open is set and of the service one otherwise.
func (m *merged) summary(open bool) *runs.Summary {
	h := m.lat[service]
	if open {
		h = m.lat[response]
	}
	qps := 0.0
	if d := m.duration(); d > 0 {
		qps = float64(m.count) / d.Seconds()
	}
	q := h.Percentiles([]float64{50, 90, 99})
	return &runs.Summary{
		Count: m.count, Errors: m.errors, QPS: qps, MinUS: micros(h.Min()), AvgUS: h.MeanMicros(),
		P50US: micros(q[0].Value), P90US: micros(q[1].Value), P99US: micros(q[2].Value), MaxUS: micros(h.Max()),
	}
}

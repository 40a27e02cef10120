package runs

import (
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/resultformat"
	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
)

// ShardStatus is where one shard of a run is.
type ShardStatus string

// Shard statuses.
const (
	// ShardAssigned shards were planned and sent to their agent.
	ShardAssigned ShardStatus = "assigned"
	// ShardRunning shards have sent at least one interval snapshot.
	ShardRunning ShardStatus = "running"
	// ShardDone shards have sent their final snapshot.
	ShardDone ShardStatus = "done"
	// ShardLost shards lost their agent, or sent no final snapshot in time.
	// One whose agent sends again while its run runs is running again.
	ShardLost ShardStatus = "lost"
)

// Settled reports whether a shard in s will send nothing more that counts:
// it is done or lost.
func (s ShardStatus) Settled() bool { return s == ShardDone || s == ShardLost }

// SnapshotRecord is one shard snapshot to store, already checked.
type SnapshotRecord struct {
	RunID uuid.UUID
	Shard int
	// Agent sent the snapshot (the id in its subject, which NATS
	// permissions tie to the agent's credentials); it must be the shard's.
	Agent uuid.UUID
	// Seq numbers the shard's snapshots from 1; (RunID, Shard, Seq) is
	// stored once whatever the number of deliveries.
	Seq   int64
	Final bool
	// IntervalStart places an interval snapshot in its second of the run
	// (SecondOf).
	IntervalStart time.Time
	// Count and Errors are the interval's, or the whole shard's when Final.
	Count  int64
	Errors int64
	// Encoded is the snapshot as received; a final one is kept with its
	// shard for the finisher.
	Encoded []byte
	// WrittenURLs are the URLs of successful writes the snapshot carries
	// (record_written_urls), stored once with its key.
	WrittenURLs []string
	// Summary is an interval snapshot's figures kept per shard and second
	// (ShardSecond, migration 00027); nil on a final.
	Summary *ShardFigures
}

// Recorded says what storing a snapshot did.
type Recorded struct {
	// Duplicate is set when the snapshot was stored before (a redelivery):
	// nothing else changed.
	Duplicate bool
	// Second is the second of the run an interval snapshot was merged into.
	Second int
	// Ignored is set for a final snapshot that arrived after its run ended
	// or after its shard's final, and for an interval snapshot of a lost
	// shard that arrived after its run ended: it changed nothing.
	Ignored bool
	// Settled is set when every shard of the run is done or lost and the
	// run has not ended: it is ready to be finished.
	Settled bool
}

// SecondOf returns the second of a run that started at startAt an interval
// starting at start belongs to: whole seconds since startAt, rounded down,
// 0 for an interval that started early.
func SecondOf(startAt, start time.Time) int {
	d := start.Sub(startAt)
	if d <= 0 {
		return 0
	}
	return int(min(int64(d/time.Second), math.MaxInt32))
}

// Quantiles are the p50, p90, p99 and max of one latency in one second,
// in microseconds.
type Quantiles struct {
	P50US, P90US, P99US, MaxUS float64
}

// Interval is the merged measurements of one second of a run, across its
// shards.
type Interval struct {
	RunID  uuid.UUID
	Second int
	// Count and Errors are the requests completed in the second.
	Count  int64
	Errors int64
	// RetCodes counts results by code.
	RetCodes      map[string]int64
	BytesSent     int64
	BytesReceived int64
	// Response, Service and Lag are HdrHistogram encodings (pkg/hist) of
	// the three latencies; empty when nothing was recorded yet.
	Response []byte
	Service  []byte
	Lag      []byte
	// P50US, P90US, P99US and MaxUS are of Response, in microseconds.
	P50US float64
	P90US float64
	P99US float64
	MaxUS float64
	// ServiceQ and LagQ are the same four of Service and Lag, stored by
	// ingest with the histograms; nil for a second stored without them
	// (before migration 00030, or imported), whose histograms say.
	ServiceQ, LagQ *Quantiles
	// Snapshots is the number of shard snapshots merged into the second.
	Snapshots int
	// GeneratorLimited is set when, for a snapshot of the second, its
	// agent was the bottleneck (docs/observability.md, "Generator limited").
	GeneratorLimited bool
	// Iterations are a scenario run's iterations in the second: started,
	// and those that ended in it, completed or failed (zero for other runs).
	Iterations Iterations
	// Seconds is the number of stored seconds a window of FoldIntervals
	// holds; 0 for a plain second.
	Seconds   int
	UpdatedAt time.Time
}

// Iterations counts a scenario run's iterations.
type Iterations struct {
	Started, Completed, Failed int64
}

// IntervalBatch is a batch of interval snapshots being stored in one
// transaction: the storage has written their dedupe rows and locked the
// seconds their new snapshots fall in, and waits for the caller to merge
// those seconds (package ingest) and Commit. Rows are locked in a fixed
// order, so concurrent batches wait for each other rather than deadlock.
type IntervalBatch interface {
	// Recorded tells what became of each snapshot of the batch, in order:
	// Duplicate when it was stored before or earlier in the batch, else
	// the Second it falls in. It holds once the batch commits.
	Recorded() []Recorded
	// Seconds are the seconds the batch's new snapshots fall in, locked,
	// in lock order.
	Seconds() []PendingSecond
	// Commit stores merged[i] as the new value of Seconds()[i], moves the
	// shards' progress by the new snapshots and commits the batch.
	Commit(merged []Interval) error
	// Rollback ends the batch storing nothing; after Commit it does
	// nothing.
	Rollback()
}

// PendingSecond is one second of a run an IntervalBatch has locked.
type PendingSecond struct {
	// Stored is the second as stored, with nothing counted when new.
	Stored Interval
	// Fresh are the indexes in the batch of the new snapshots that fall
	// in this second, which the merged second must add to Stored.
	Fresh []int
}

// ShardState is a shard as the finisher sees it.
type ShardState struct {
	Index   int
	AgentID uuid.UUID
	Status  ShardStatus
	LastSeq int64
	// Count and Errors are the shard's requests so far, or its totals once
	// done.
	Count  int64
	Errors int64
	// Final is the shard's final snapshot as received; nil unless done.
	Final []byte
}

// ShardProgress is a shard as its run's viewers see it: its part of the
// plan, where it is and what it has counted so far.
type ShardProgress struct {
	Shard
	Status ShardStatus
	// LastSeq is the highest snapshot sequence number stored (snapshots
	// are numbered from 1); 0 before the first.
	LastSeq int64
	// FinalReceived is set once the shard's final snapshot was stored.
	FinalReceived bool
	// Count and Errors are the shard's requests so far, or its totals once
	// done.
	Count  int64
	Errors int64
	// UpdatedAt is when a snapshot or a status change last touched it.
	UpdatedAt time.Time
}

// Settlement is a run whose every shard is done or lost, locked for the
// finisher to decide how it ends.
type Settlement struct {
	Run    Run
	Shards []ShardState
	// Baseline is the newest passing run of the same test created before
	// Run (or the run it asked for), with its result; nil when the run has
	// no test or no thresholds, or the test has no such run.
	Baseline *Baseline
	// Pooled are the older passing runs of the test pooled with Baseline,
	// newest first, when the run asked for the last N (Run.BaselineLast):
	// at most N-1 of them, fewer when the test has fewer.
	Pooled []Baseline
	// Seconds are the run's stored seconds (every shard's interval
	// snapshots, merged); read only when a lost shard had sent some, so
	// that the result counts what it sent (docs/reliability.md), or when
	// a confidence form compares them with the baseline's.
	Seconds []Interval
	// LimitedSeconds is how many of the run's stored seconds are
	// GeneratorLimited.
	LimitedSeconds int
}

// SentBeforeLost reports whether a shard of the settlement was lost after
// sending snapshots.
func (st *Settlement) SentBeforeLost() bool {
	for _, sh := range st.Shards {
		if sh.Status == ShardLost && sh.LastSeq > 0 {
			return true
		}
	}
	return false
}

// LostCount is the requests the lost shards' stored snapshots counted.
func (st *Settlement) LostCount() int64 {
	var n int64
	for _, sh := range st.Shards {
		if sh.Status == ShardLost {
			n += sh.Count
		}
	}
	return n
}

// Baseline is a run the baseline forms of thresholds compare with.
type Baseline struct {
	Run    Run
	Result Result
	// Seconds are the baseline's stored seconds, read only when the run
	// has a confidence form (pkg/threshold), which resamples them.
	Seconds []Interval
}

// Finish is how a run ends.
type Finish struct {
	// Status is Completed, Failed or Canceled; it must be reachable from
	// the run's status (From).
	Status Status
	// Error says why a run failed.
	Error string
	// At is the run's end time.
	At time.Time
	// StartedAt is used when the run has no start time yet; zero for none.
	StartedAt time.Time
	// Degraded is set when the result lacks lost shards.
	Degraded bool
	// Summary is written to the run's summary columns; nil leaves them empty.
	Summary *Summary
	// Result is the merged result; nil when no shard sent a final snapshot.
	Result *Result
	// Timeline is the merged per-request sample; nil stores none.
	Timeline *Timeline
	// Verdict is VerdictPass, VerdictFail, VerdictError or "" (none).
	Verdict string
	// Thresholds is the outcome of each of the run's thresholds; nil
	// leaves the run unjudged.
	Thresholds []threshold.Outcome
	// BaselineRunID is the baseline the thresholds used, or uuid.Nil.
	BaselineRunID uuid.UUID
	// VerdictNote qualifies the verdict (the load generator was the
	// bottleneck); "" for none.
	VerdictNote string
	// BaselinePool is what the thresholds pooled, for a run that asked
	// for the last N passing runs; nil otherwise.
	BaselinePool *BaselinePool
}

// MaxBaselineLast is the most passing runs a run may pool as its
// baseline.
const MaxBaselineLast = testdefs.MaxBaselineLast

// BaselinePool is what a run that asked for the last N passing runs of its
// test was compared with.
type BaselinePool struct {
	// Runs are the runs pooled, newest first; empty when the test had none.
	Runs []uuid.UUID
	// Note says when fewer runs than asked were pooled, and why; "" when
	// all N were.
	Note string
}

// Verdicts: how a finished run is judged, separately from its status.
const (
	// VerdictPass runs completed whole and met every threshold.
	VerdictPass = "pass"
	// VerdictFail runs missed a threshold, or one could not be evaluated.
	VerdictFail = "fail"
	// VerdictError runs failed, or completed without some of their shards.
	VerdictError = "error"
	// VerdictInconclusive runs failed no threshold, but a confidence form
	// could not tell whether they met it (pkg/threshold): they are not a
	// baseline for later runs.
	VerdictInconclusive = "inconclusive"
)

// Judge returns the verdict of a run that ends in status, degraded or
// not, with the outcomes of its thresholds: none for a canceled run, error
// for a failed or degraded one, fail when an outcome did not pass and was
// not inconclusive, inconclusive when some outcome was, pass otherwise
// (also with no thresholds).
func Judge(status Status, degraded bool, outcomes []threshold.Outcome) string {
	switch {
	case status == Canceled || !status.Terminal():
		return ""
	case status == Failed || degraded:
		return VerdictError
	}
	verdict := VerdictPass
	for _, o := range outcomes {
		switch {
		case o.Inconclusive:
			verdict = VerdictInconclusive
		case !o.Pass:
			return VerdictFail
		}
	}
	return verdict
}

// Result is the merged final measurements of a run.
type Result struct {
	RunID uuid.UUID
	// Response, Service and Lag are HdrHistogram encodings (pkg/hist).
	Response []byte
	Service  []byte
	Lag      []byte
	// Server is the encoding of the latency the target reported in the
	// spec's latency header (one value per response that carried it); nil
	// when the run read no such header.
	Server []byte
	// Phases are the encodings of the request phase histograms, in the
	// order of resultformat.PhaseNames (dns, connect, tls, waiting,
	// receiving); nil for a phase no request had (all of them for a run
	// other than HTTP, or one that ended before phases were recorded).
	Phases   [resultformat.PhaseCount][]byte
	RetCodes map[string]int64
	Count    int64
	Errors   int64
	// BytesSent and BytesReceived are totals over every request.
	BytesSent     int64
	BytesReceived int64
	// Duration is from the earliest start to the latest end of the shards'
	// final snapshots.
	Duration time.Duration
	// Shards is the number of shards merged; LostShards those missing.
	Shards     int
	LostShards int
	// GeneratorLimitedSeconds is how many seconds of the run its agents
	// were the bottleneck for (docs/observability.md, "Generator
	// limited"); 0 when never.
	GeneratorLimitedSeconds int
	CreatedAt               time.Time
	// Imported is set for a run imported from a Fortio document, which has
	// no histograms: what the document said.
	Imported *Imported
	// Fortio is the run's Fortio result JSON as /fortio/data serves it,
	// with its MD5; nil until first exported (an imported run's is its
	// redacted document from the start).
	Fortio    []byte
	FortioMD5 []byte
	// Entries are the results of each entry of the run's request mix, in
	// the spec's order; nil without a mix. They add up to the totals.
	Entries []EntryResult
	// Scenario is a scenario run's iterations and steps; nil for other
	// runs.
	Scenario *ScenarioResult
	// WrittenURLs counts the URLs a run with record_written_urls stored
	// and dropped; nil for other runs. Measures fills it when it reads the
	// result: it is not stored with it.
	WrittenURLs *WrittenURLCounts
}

// EntryResult is the merged result of one entry of a request mix.
type EntryResult struct {
	// Index is the entry's position in the spec's requests.
	Index         int
	Count, Errors int64
	RetCodes      map[string]int64
	BytesSent     int64
	BytesReceived int64
	// Service and Response are HdrHistogram encodings (pkg/hist).
	Service, Response []byte
}

// Sweep is one pass over the active runs' pending shards.
type Sweep struct {
	// Now is the time of the sweep.
	Now time.Time
	// Grace is how long after a run's deadline its final snapshots may
	// still arrive; a shard still pending after it is lost.
	Grace time.Duration
	// CheckAgents enables the heartbeat check: a pending shard of a run
	// that has started is lost when its agent is not in Live. Leave it off
	// when the heartbeats could not be read.
	CheckAgents bool
	// Live is the agents with a heartbeat.
	Live []uuid.UUID
	// Queued names the shards ("<run id>/<shard>") that have snapshots
	// waiting in the stream, not yet stored: their final may be among them,
	// so they are not lost until Backlog more has passed after Grace.
	Queued []string
	// Backlog is the extra grace of queued shards: long while the ingest
	// drains the stream, short once it has stalled (ingest/sweep.go).
	Backlog time.Duration
	// Limit bounds the shards marked lost and the runs returned.
	Limit int
}

// LostShard is a shard a sweep marked lost.
type LostShard struct {
	RunID uuid.UUID
	Shard int
	// Deadline is set when the shard missed its run's deadline and grace;
	// otherwise its agent stopped heartbeating.
	Deadline bool
}

// Swept is what a sweep did.
type Swept struct {
	// Lost is the shards marked lost.
	Lost []LostShard
	// Settled is active runs whose every shard is done or lost: they are
	// ready to be finished.
	Settled []uuid.UUID
}

// TimelineSample is one request of a run's timeline.
type TimelineSample struct {
	// IntendedUS and SentUS are when the request was meant to be sent and
	// was, in microseconds from the run's start.
	IntendedUS int64 `json:"intended_us"`
	SentUS     int64 `json:"sent_us"`
	// LatencyUS is its service time: sent to response done.
	LatencyUS int64 `json:"latency_us"`
	// Code is its result code, as in ret codes.
	Code string `json:"code"`
	OK   bool   `json:"ok"`
	// Entry is its request-mix entry's index, -1 without a mix.
	Entry int `json:"entry"`
}

// Timeline is a uniform sample of a run's requests, ordered by send time.
type Timeline struct {
	// Seen is the number of requests the sample was drawn from.
	Seen    int64
	Samples []TimelineSample
}

package fortiorest

import (
	"strconv"
	"time"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Messages of Reply, as Fortio words them.
const (
	MessageStarted  = "started"
	MessageStopping = "stopping"
	MessageStopped  = "stopped"
	// MessageRunning answers a sync call whose run outlived the wait.
	MessageRunning = "running"
)

// Reply is Fortio's reply to async=on and to stop (rapi.AsyncReply): the
// run number, how many runs it concerns, and where its result will be.
type Reply struct {
	Message string `json:"message,omitempty"`
	// RunID is the run's number (Barrage's run seq, also in its result ID).
	RunID int64
	// Count is 1 for a started run, the number stopped for stop.
	Count int
	// ResultID names the result file; ResultURL is where it is served
	// (/fortio/data/<ResultID>.json) once the run completes.
	ResultID  string
	ResultURL string
}

// Fortio's run states (rapi.StateEnum), numbers in its status JSON.
const (
	StatePending  = 1
	StateRunning  = 2
	StateStopping = 3
)

// StatusReply is Fortio's reply to status: the runs in progress by number.
type StatusReply struct {
	Statuses map[string]Status
}

// Status is one run of a StatusReply.
type Status struct {
	RunID         int64
	State         int
	RunnerOptions RunnerOptions
}

// RunnerOptions are the options of a run in progress as Fortio shows them
// (periodic.RunnerOptions), plus Barrage's run id and status.
type RunnerOptions struct {
	RunType     string
	QPS         float64
	Duration    int64 // ns; -1 until stopped
	NumThreads  int
	Percentiles []float64
	Resolution  float64
	Labels      string
	Exactly     int64
	Jitter      bool
	Uniform     bool
	RunID       int64
	Offset      int64
	NoCatchUp   bool
	ID          string
	// BarrageID and BarrageStatus are Barrage's run id and status.
	BarrageID     string
	BarrageStatus string
}

// StateOf maps a run's status at now to Fortio's state: a run whose
// agents wait for its start time is still pending.
func StateOf(r runs.Run, now time.Time) int {
	switch r.Status {
	case runs.Running:
		if now.Before(r.StartAt) {
			return StatePending
		}
		return StateRunning
	case runs.Stopping:
		return StateStopping
	default:
		return StatePending
	}
}

// InProgress are the statuses status lists and stop-all stops.
func InProgress() []runs.Status {
	return []runs.Status{runs.Queued, runs.Dispatching, runs.Running, runs.Stopping}
}

// StatusOf describes run r at now; its result will be named id.
func StatusOf(r runs.Run, id string, now time.Time) Status {
	sp := r.Spec
	dur := int64(sp.RunFor())
	if sp.UntilStopped {
		dur = -1
	}
	return Status{RunID: r.Seq, State: StateOf(r, now), RunnerOptions: RunnerOptions{
		RunType: fortiojson.RunType(sp), QPS: r.QPSRequested, Duration: dur, NumThreads: sp.Connections,
		Percentiles: sp.Percentiles, Resolution: 0.001, Labels: fortiojson.Labels(r.Labels), Exactly: sp.Count,
		Jitter: sp.Jitter, Uniform: sp.Uniform, RunID: r.Seq, NoCatchUp: sp.NoCatchUp, ID: id,
		BarrageID: r.ID.String(), BarrageStatus: string(r.Status),
	}}
}

// Key is a run's key in StatusReply.Statuses.
func Key(seq int64) string { return strconv.FormatInt(seq, 10) }

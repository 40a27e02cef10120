package runs

import "slices"

// Status is where a run is in its life. The transitions below are the only
// ones allowed; the store applies a change only when the run is still in one
// of the statuses the change may start from (From), so concurrent writers
// cannot break the machine.
//
//	queued ──▶ dispatching ──▶ running ──▶ stopping ──▶ completed | failed | canceled
//	   │             │  │          │
//	   │             │  └──────────┼──▶ stopping
//	   │             └─────────────┴──▶ completed | failed | canceled
//	   └──▶ failed (no agent can take it) | canceled
type Status string

// Run statuses.
const (
	// Queued runs are stored and wait for the dispatcher.
	Queued Status = "queued"
	// Dispatching runs have shards being assigned to agents.
	Dispatching Status = "dispatching"
	// Running runs have agents sending traffic.
	Running Status = "running"
	// Stopping runs were asked to stop and wait for their final snapshots.
	Stopping Status = "stopping"
	// Completed runs finished and have a merged result.
	Completed Status = "completed"
	// Failed runs could not run or lost their agents.
	Failed Status = "failed"
	// Canceled runs were stopped before they sent traffic.
	Canceled Status = "canceled"
)

// Statuses lists every status in life order.
func Statuses() []Status {
	return []Status{Queued, Dispatching, Running, Stopping, Completed, Failed, Canceled}
}

// Valid reports whether s is a known status.
func (s Status) Valid() bool { return slices.Contains(Statuses(), s) }

// Terminal reports whether a run in s is over.
func (s Status) Terminal() bool {
	return s == Completed || s == Failed || s == Canceled
}

// From returns the statuses a run may move to s from.
func From(to Status) []Status {
	switch to {
	case Dispatching:
		return []Status{Queued}
	case Running:
		return []Status{Dispatching}
	case Stopping:
		return []Status{Dispatching, Running}
	case Completed:
		return []Status{Dispatching, Running, Stopping}
	case Failed:
		return []Status{Queued, Dispatching, Running, Stopping}
	case Canceled:
		return []Status{Queued, Dispatching, Running, Stopping}
	default:
		return nil
	}
}

// CanMove reports whether a run may go from one status to another.
func CanMove(from, to Status) bool {
	return slices.Contains(From(to), from)
}

// Notifier is told of a run's new status after the change committed, so
// that live streams learn of it without polling (package live's Hub
// implements it). Every writer of a run's status tells one: Service.Stop,
// the Aborter, the dispatcher and the ingester (which ends runs).
type Notifier interface {
	RunMoved(r Run)
}

// notify tells n, when set, that r moved to its status.
func notify(n Notifier, r Run) {
	if n != nil {
		n.RunMoved(r)
	}
}

package live

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Event tells live streams that something of a run changed: an interval
// snapshot was merged into a second, a shard's final snapshot was stored,
// or the run's status changed. It is delivered after the change
// committed, in-process (Hub.Local) and as JSON on wire.NotifySubject
// (Broadcast), so that every replica's hub hears it.
type Event struct {
	RunID uuid.UUID `json:"run_id"`
	// Second is the second of the run an interval snapshot was merged
	// into; 0 when Final or Status is set.
	Second int `json:"second"`
	// Final is set when a shard's final snapshot was stored, when the
	// run ended, and when events may have been lost (Hub.Resync): on it a
	// reader reads the run again.
	Final bool `json:"final"`
	// Status is the run's new status when the event is a status change:
	// with Final when the run ended (completed, failed, canceled), alone
	// when it moved on (dispatching, running, stopping); empty otherwise.
	Status runs.Status `json:"status,omitempty"`
	// Shards is the run's shard count on a status change of a dispatched
	// run; 0 otherwise.
	Shards int `json:"shards,omitempty"`
}

// StatusEvent is the event of r's move to its current status.
func StatusEvent(r runs.Run) Event {
	return Event{RunID: r.ID, Status: r.Status, Final: r.Status.Terminal(), Shards: r.ShardCount}
}

// moved reports whether e is a status change of a run that goes on.
func (e Event) moved() bool { return e.Status != "" && !e.Final }

// later reports whether status to comes after from in a run's life, so
// that a stream never goes back when two replicas' events cross.
func later(to, from runs.Status) bool {
	order := runs.Statuses()
	return slices.Index(order, to) > slices.Index(order, from)
}

// Broadcast publishes e on wire.NotifySubject, where every replica's hub
// hears it (Hub.SubscribeNATS). A nil nc publishes nothing.
func Broadcast(nc *nats.Conn, e Event) error {
	if nc == nil {
		return nil
	}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode run event: %w", err)
	}
	if err := nc.Publish(wire.NotifySubject, b); err != nil {
		return fmt.Errorf("publish run event: %w", err)
	}
	return nil
}

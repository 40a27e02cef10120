package live

import (
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Event tells live hubs that a run's measurements changed. It is
// published as JSON on wire.NotifySubject after the change committed
// (Broadcast).
type Event struct {
	RunID uuid.UUID `json:"run_id"`
	// Second is the second of the run an interval snapshot was merged
	// into; 0 when Final is set.
	Second int `json:"second"`
	// Final is set when a shard's final snapshot was stored, and when the
	// run ended.
	Final bool `json:"final"`
	// Status is the run's status when the event is its end (completed,
	// failed, canceled); empty otherwise.
	Status runs.Status `json:"status,omitempty"`
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

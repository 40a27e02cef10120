package runs

import "time"

// Outbox topics: a run change that agents must hear of is written, in the
// change's own transaction, as an outbox row on one of these topics, and
// the dispatcher publishes it (package dispatch).
const (
	// TopicRunDispatch carries a new run (a DispatchMessage) to the
	// dispatcher.
	TopicRunDispatch = "run.dispatch"
	// TopicRunControl carries a control message (a ControlMessage: a stop)
	// to a run's agents.
	TopicRunControl = "run.control"
)

// OutboxMessage is an outbox row waiting to be published.
type OutboxMessage struct {
	ID       int64
	Topic    string
	Key      string
	Payload  []byte
	Attempts int
	// CreatedAt is when the row was committed.
	CreatedAt time.Time
}

// OutboxOutcome is what a publisher did with claimed outbox rows.
type OutboxOutcome struct {
	// Published rows are done.
	Published []int64
	// Later rows are claimed again from the time given (a run waiting for
	// an agent). Rows in neither list failed and are retried after a delay
	// that grows with their attempts, up to 10 s.
	Later map[int64]time.Time
}

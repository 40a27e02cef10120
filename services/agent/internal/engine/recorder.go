package engine

import (
	"sync"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// recorder accumulates the requests of a few connections between two interval
// collections. Connections share recorders (see recorderCount) so memory does
// not grow with the connection count; the mutex is rarely contended.
type recorder struct {
	mu  sync.Mutex
	cur *Snapshot
}

func newRecorder() *recorder {
	return &recorder{cur: newSnapshot()}
}

// record adds one request: intended is when it was meant to be sent, sent when it
// was, done when its response completed.
func (r *recorder) record(res request.Result, intended, sent, done time.Time) {
	r.mu.Lock()
	s := r.cur
	s.Count++
	if !res.OK {
		s.Errors++
	}
	s.Codes[res.Code]++
	s.Sent += res.Sent
	s.Received += res.Received
	s.Service.Record(done.Sub(sent))
	s.Response.Record(done.Sub(intended))
	s.Lag.Record(sent.Sub(intended))
	r.mu.Unlock()
}

// drainInto merges what was recorded since the last drain into dst and resets.
func (r *recorder) drainInto(dst *Snapshot) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur.Count == 0 {
		return nil
	}
	err := dst.add(r.cur)
	r.cur.reset()
	return err
}

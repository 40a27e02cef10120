package engine

import (
	"sync"
	"time"

	"github.com/barrage-dev/barrage/pkg/timeline"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// recorder accumulates the requests of a few connections between two interval
// collections. Connections share recorders (see recorderCount) so memory does
// not grow with the connection count; the mutex is rarely contended.
type recorder struct {
	mu  sync.Mutex
	cur *Snapshot
	// start is the run's start, the origin of the timeline's offsets.
	start time.Time
	// timeline samples the requests of the whole run; nil when off.
	timeline *timeline.Reservoir[TimelineSample]
	// written keeps the URLs of successful writes; nil when off. urls
	// are the ones recorded since the collector last took them.
	written *urlLog
	urls    []string
}

func newRecorder(server bool, entries int, start time.Time, tl *timeline.Reservoir[TimelineSample]) *recorder {
	return &recorder{cur: newSnapshot(server, entries), start: start, timeline: tl}
}

// record adds one request of entry (-1 without a mix): intended is when it
// was meant to be sent, sent when it was, done when its response completed;
// write is the request target of a successful write whose URL is recorded,
// else nil.
func (r *recorder) record(res request.Result, entry int, intended, sent, done time.Time, write []byte) {
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
	if res.HasServerTime && s.Server != nil {
		s.Server.Record(res.ServerTime)
	}
	s.Phases.record(&res.Phases, sent, done)
	if entry >= 0 {
		e := s.Entries[entry]
		e.Count++
		if !res.OK {
			e.Errors++
		}
		e.Codes[res.Code]++
		e.Sent += res.Sent
		e.Received += res.Received
		e.Service.Record(done.Sub(sent))
		e.Response.Record(done.Sub(intended))
	}
	if r.timeline != nil {
		if p := r.timeline.Slot(); p != nil {
			*p = TimelineSample{
				Intended: intended.Sub(r.start), Sent: sent.Sub(r.start), Latency: done.Sub(sent),
				Code: res.Code, Entry: int32(entry), OK: res.OK,
			}
		}
	}
	if write != nil {
		if u, ok := r.written.take(write); ok {
			r.urls = append(r.urls, u)
		}
	}
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

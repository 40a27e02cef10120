package live

import (
	"math"
	"slices"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// maxSentSecond bounds a sentLog: a run lasts at most spec.MaxDuration; a
// second beyond it is sent every time it changes or not.
const maxSentSecond = int(spec.MaxDuration / time.Second)

// sentLog remembers, per second, how many shard snapshots a live stream
// sent it with, so that a second is sent again only when it changed. A
// second sent with every shard's snapshot cannot change any more (each
// shard adds one snapshot per second, a repeat is not stored), so the
// complete seconds at the front are let go and only the seconds from the
// first incomplete one on are held: its memory follows how far back
// seconds are still open (the ingest lag, a few seconds), not the run's
// length. (A slice of every second grew by 4 bytes per second and stream:
// 1.4 MB over 30 minutes with 200 streams in make soak.)
type sentLog struct {
	// complete is the snapshots of a complete second, the run's shard
	// count; 0 while it is not known, and nothing is let go.
	complete int
	// base is the first second held; every second before it was sent
	// complete, or was the client's before it connected.
	base int
	// held[i] is the snapshots plus one second base+i was sent with; 0:
	// not sent.
	held []int32
}

// sentWith reports whether second was sent with snapshots.
func (l *sentLog) sentWith(second, snapshots int) bool {
	if second < l.base {
		return true
	}
	i := second - l.base
	return i < len(l.held) && int(l.held[i]) == snapshots+1
}

// mark records that second was sent with snapshots.
func (l *sentLog) mark(second, snapshots int) {
	if second < l.base || second > maxSentSecond {
		return
	}
	i := second - l.base
	if i >= len(l.held) {
		l.held = slices.Grow(l.held, i+1-len(l.held))[:i+1]
	}
	l.held[i] = int32(min(snapshots, math.MaxInt32-1) + 1)
	l.letGo()
}

// skipTo treats every second before second as sent: the client had them.
func (l *sentLog) skipTo(second int) {
	if second <= l.base {
		return
	}
	n := min(second-l.base, len(l.held))
	l.held = l.held[n:]
	l.base = second
	l.letGo()
}

// setComplete sets the snapshots of a complete second once the run's
// shard count is known.
func (l *sentLog) setComplete(shards int) {
	if shards > 0 && l.complete != shards {
		l.complete = shards
		l.letGo()
	}
}

// letGo drops the complete seconds at the front.
func (l *sentLog) letGo() {
	if l.complete <= 0 {
		return
	}
	n := 0
	for n < len(l.held) && int(l.held[n]) == l.complete+1 {
		n++
	}
	if n == 0 {
		return
	}
	l.base += n
	l.held = l.held[n:]
	if len(l.held) == 0 {
		l.held = nil // let the array go
	}
}

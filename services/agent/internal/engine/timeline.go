package engine

import (
	"math/rand/v2"
	"time"

	"github.com/barrage-dev/barrage/pkg/timeline"
)

// TimelineSample is one request of the run's timeline: a uniform sample of
// its requests (see Snapshot.Timeline).
type TimelineSample struct {
	// Intended and Sent are when the request was meant to be sent and was,
	// as offsets from the snapshot's Start.
	Intended, Sent time.Duration
	// Latency is its service time: sent to response done.
	Latency time.Duration
	// Code is its result code (see request.Result.Code).
	Code int32
	// Entry is its request-mix entry, -1 without a mix.
	Entry int32
	// OK tells whether it succeeded.
	OK bool
}

// timelineSize is the reservoir size of opts: Options.Timeline, or the
// default when 0; 0 when the timeline is off.
func timelineSize(o *Options) int {
	switch {
	case o.Timeline < 0:
		return 0
	case o.Timeline == 0:
		return timeline.DefaultSize
	default:
		return o.Timeline
	}
}

// newTimeline returns the reservoir of recorder i, nil when size is 0.
func newTimeline(size, i int) *timeline.Reservoir[TimelineSample] {
	if size == 0 {
		return nil
	}
	return timeline.NewReservoir[TimelineSample](size, rand.Uint64()+uint64(i)) //nolint:gosec // reservoir sampling, not a secret
}

// mergeTimelines merges the recorders' samples into one of size, weighted
// by what each recorder saw; it sets s.Timeline and s.TimelineSeen.
func (r *run) mergeTimelines(s *Snapshot, size int) {
	if size == 0 {
		return
	}
	parts := make([]timeline.Part[TimelineSample], 0, len(r.recorders))
	for _, rec := range r.recorders {
		rec.mu.Lock()
		parts = append(parts, timeline.Part[TimelineSample]{Items: rec.timeline.Items(), Seen: rec.timeline.Seen()})
		rec.mu.Unlock()
	}
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) //nolint:gosec // sampling, not a secret
	items, seen := timeline.Merge(parts, size, rng)
	s.Timeline, s.TimelineSeen = items, int64(seen)
}

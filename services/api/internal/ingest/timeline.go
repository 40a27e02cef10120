package ingest

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/timeline"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// maxShardTimeline bounds the samples accepted from one final snapshot (the
// agents send at most timeline.DefaultSize).
const maxShardTimeline = 4 * timeline.DefaultSize

// maxCodeLen bounds a sample's code.
const maxCodeLen = 64

// timelineFromProto checks and converts a final snapshot's timeline; its
// times stay offsets from the shard's start.
func timelineFromProto(m *barragev1.Snapshot) ([]runs.TimelineSample, int64, error) {
	list := m.GetTimeline()
	if len(list) == 0 {
		return nil, 0, nil
	}
	if !m.GetFinal() {
		return nil, 0, fmt.Errorf("timeline on interval snapshot %d", m.GetSeq())
	}
	seen := m.GetTimelineSeen()
	if len(list) > maxShardTimeline || seen < uint64(len(list)) || seen > math.MaxInt64 {
		return nil, 0, fmt.Errorf("timeline of %d samples drawn from %d: at most %d, and no more than seen", len(list), seen, maxShardTimeline)
	}
	out := make([]runs.TimelineSample, len(list))
	for i, s := range list {
		if s.GetEntry() > spec.MaxRequests {
			return nil, 0, fmt.Errorf("timeline sample %d: entry %d out of range", i, s.GetEntry())
		}
		out[i] = runs.TimelineSample{
			IntendedUS: s.GetIntendedUs(), SentUS: s.GetSentUs(), LatencyUS: s.GetLatencyUs(),
			Code: strings.ToValidUTF8(s.GetCode()[:min(len(s.GetCode()), maxCodeLen)], ""), OK: s.GetOk(),
			Entry: int(s.GetEntry()) - 1,
		}
	}
	return out, int64(seen), nil
}

// timelinePart is one shard's sample in a merge, with the shard's start.
type timelinePart struct {
	start   time.Time
	samples []runs.TimelineSample
	seen    int64
}

// mergeTimelines merges the shards' samples into one of at most
// timeline.DefaultSize, each weighted by the requests it was drawn from,
// with times rebased on start and ordered by send time. The draws are
// seeded by the run's id, so finishing a run again gives the same sample.
// Nil when no shard sent one.
func mergeTimelines(id uuid.UUID, start time.Time, parts []timelinePart) *runs.Timeline {
	if len(parts) == 0 {
		return nil
	}
	in := make([]timeline.Part[runs.TimelineSample], len(parts))
	for i, p := range parts {
		shift := p.start.Sub(start).Microseconds()
		rebased := make([]runs.TimelineSample, len(p.samples))
		for j, s := range p.samples {
			s.IntendedUS += shift
			s.SentUS += shift
			rebased[j] = s
		}
		in[i] = timeline.Part[runs.TimelineSample]{Items: rebased, Seen: uint64(p.seen)}
	}
	rng := rand.New(rand.NewPCG(binary.BigEndian.Uint64(id[:8]), binary.BigEndian.Uint64(id[8:]))) //nolint:gosec // deterministic sampling per run, not a secret
	samples, seen := timeline.Merge(in, timeline.DefaultSize, rng)
	slices.SortFunc(samples, func(a, b runs.TimelineSample) int { return cmp.Compare(a.SentUS, b.SentUS) })
	return &runs.Timeline{Seen: int64(min(seen, math.MaxInt64)), Samples: samples}
}

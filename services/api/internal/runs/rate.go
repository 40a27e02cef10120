package runs

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// RateNotHeld is the AbortedBy of a run that abort_if_rate_not_held
// stopped; such a run ends failed.
const RateNotHeld = "abort_if_rate_not_held"

// rateSettle is how long after a second ends its snapshots are taken to
// have arrived from every shard.
const rateSettle = time.Second

// rateNotHeld returns why r is to be stopped for its rate ("" to go on):
// each of its last spec.RateNotHeldSeconds complete seconds, merged over
// the shards, counted more than spec.RateTolerance under the target of
// that second. A second no shard reported counts as 0. Seconds past the
// run's duration are not judged (it is ending).
func (a *Aborter) rateNotHeld(ctx context.Context, r *Run) (string, error) {
	if r.StartAt.IsZero() {
		return "", nil
	}
	n := spec.RateNotHeldSeconds
	last := int((a.now().Sub(r.StartAt)-rateSettle)/time.Second) - 1 // the last second that ended rateSettle ago
	if d := r.Spec.Duration.Std(); d > 0 {
		last = min(last, int(d/time.Second)-1)
	}
	first := last - n + 1
	if first < 0 {
		return "", nil
	}
	ivs, err := a.store.RunIntervals(ctx, r.ID, first, n)
	if err != nil {
		return "", fmt.Errorf("seconds of run %s: %w", r.ID, err)
	}
	counts := make(map[int]int64, len(ivs))
	for i := range ivs {
		counts[ivs[i].Second] = ivs[i].Count
	}
	var got, want float64
	for s := first; s <= last; s++ {
		target := r.Spec.TargetQPSAt(time.Duration(s)*time.Second + time.Second/2)
		if float64(counts[s]) >= (1-spec.RateTolerance)*target {
			return "", nil // held this second
		}
		got += float64(counts[s])
		want += target
	}
	return fmt.Sprintf("rate not held: %.0f qps against %s for %d s", got/float64(n),
		strconv.FormatFloat(want/float64(n), 'f', -1, 64), n), nil
}

package ingest

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// baselineFor returns what the baseline forms of st.Run compare with, and
// the run that stands for it: st.Baseline, or, for a run that asked for
// the last N passing runs of its test, those of them it can be compared
// with, pooled (threshold.Pool), with what was pooled and a note when it
// is fewer than N. st.Baseline must be set.
func baselineFor(st runs.Settlement) (threshold.Observed, uuid.UUID, *runs.BaselinePool, error) {
	newest := st.Baseline
	if st.Run.BaselineLast == 0 {
		b, err := baselineObserved(newest)
		if err != nil {
			return threshold.Observed{}, uuid.Nil, nil, err
		}
		b.NotComparable = incomparable(st.Run, newest.Run)
		return b, newest.Run.ID, nil, nil
	}
	all := append([]runs.Baseline{*newest}, st.Pooled...)
	var (
		parts []threshold.Observed
		left  []string
	)
	pool := &runs.BaselinePool{Runs: []uuid.UUID{}}
	for i := range all {
		if why := incomparable(st.Run, all[i].Run); why != "" {
			left = append(left, fmt.Sprintf("run %s: %s", all[i].Run.ID, why))
			continue
		}
		b, err := baselineObserved(&all[i])
		if err != nil {
			return threshold.Observed{}, uuid.Nil, nil, err
		}
		parts = append(parts, b)
		pool.Runs = append(pool.Runs, all[i].Run.ID)
	}
	pool.Note = poolNote(st.Run.BaselineLast, len(all), len(parts), left)
	if len(parts) == 0 {
		b, err := baselineObserved(newest)
		if err != nil {
			return threshold.Observed{}, uuid.Nil, nil, err
		}
		b.NotComparable = fmt.Sprintf("none of the last %d passing runs can be compared with this run (%s)", len(all), left[0])
		return b, newest.Run.ID, pool, nil
	}
	b, err := threshold.Pool(parts)
	if err != nil {
		return threshold.Observed{}, uuid.Nil, nil, err
	}
	return b, pool.Runs[0], pool, nil
}

// poolNote says why a pool of pooled runs holds fewer than the asked:
// the test had only found earlier passing runs, or some of them (left,
// whose first reason is given) could not be compared; "" when neither.
func poolNote(asked, found, pooled int, left []string) string {
	note := ""
	if found < asked {
		note = fmt.Sprintf("the test has %d earlier passing %s of the %d asked for", found, plural(found, "run", "runs"), asked)
	}
	if len(left) > 0 {
		if note != "" {
			note += "; "
		}
		note += fmt.Sprintf("%d of them left out, %s", len(left), left[0])
	}
	if note == "" {
		return ""
	}
	return fmt.Sprintf("pooled %d %s: %s", pooled, plural(pooled, "run", "runs"), note)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

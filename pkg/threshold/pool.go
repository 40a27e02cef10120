package threshold

import (
	"errors"
	"fmt"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// Pool returns several baseline runs as one baseline, for a run compared
// with the last N passing runs of its test: counts, errors and codes
// summed, latency histograms merged, qps the mean of the runs' (they ran
// at the same rate), and Parts set to the runs, whose seconds confidence
// forms pool (docs/verdicts.md, "A baseline of several runs"). The first
// run gives the primary latency kind. One run is returned as it is.
func Pool(runs []Observed) (Observed, error) {
	switch len(runs) {
	case 0:
		return Observed{}, errors.New("pool: no runs")
	case 1:
		return runs[0], nil
	}
	out := Observed{Primary: runs[0].Primary, Codes: map[string]int64{}, Parts: runs}
	var qps float64
	for i := range runs {
		r := &runs[i]
		out.Count += r.Count
		out.Errors += r.Errors
		qps += r.QPS
		for c, n := range r.Codes {
			out.Codes[c] += n
		}
		for _, x := range []struct{ src, dst **hist.Histogram }{
			{&r.Response, &out.Response}, {&r.Service, &out.Service}, {&r.Lag, &out.Lag},
		} {
			if *x.src == nil {
				continue
			}
			if *x.dst == nil {
				*x.dst = hist.New()
			}
			if err := (*x.dst).Merge(*x.src); err != nil {
				return Observed{}, fmt.Errorf("pool: merge run %d: %w", i, err)
			}
		}
	}
	out.QPS = qps / float64(len(runs))
	return out, nil
}
